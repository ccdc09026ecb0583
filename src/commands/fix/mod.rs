//! `dmlrun fix MODEL -o OUT`: the model run whole on the EP under test against the reference on
//! the original; where it fails or differs, the remedies that fit it tried in a fixed order, each
//! attempt a whole run against the reference; the first set that passes pruned to the fewest
//! that still pass, and written as `--save-model` writes a model, with the record of every attempt.

mod attempts;
mod decoder;

use attempts::{Attempts, Tried};

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::cli::FixArgs;
use crate::exit::ExitStatus;
use crate::graph::{Graph, Rewrite};
use crate::isolation::{Placement, PlacementRequest};
use crate::report::fix::{self as report, AttemptOutcome, FixReport, Located, FIX_SCHEMA};
use crate::runtime::engine;
use crate::runtime::plan::Precision;
use crate::settings::FixSettings;

/// One thing dmlrun knows to do to a model an execution provider rejects or gets wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Remedy {
    Rewrite(Rewrite),
    /// Float32 converted to float16 (with the float32 run typing the conversion), for a float32
    /// kernel an EP cannot compile.
    Float16,
    /// With float16: these nodes left in float32, each one whose input or output leaves
    /// float16's range on the reference.
    KeepFp32(Vec<String>),
}

impl Remedy {
    fn flag(&self) -> String {
        self.args().join(" ")
    }

    /// The command-line arguments that ask for it.
    fn args(&self) -> Vec<String> {
        match self {
            Remedy::Rewrite(rewrite) => rewrite.args(),
            Remedy::Float16 => vec!["--precision".into(), "fp16".into()],
            Remedy::KeepFp32(nodes) => nodes.iter().flat_map(|n| ["--keep-fp32".to_string(), n.clone()]).collect(),
        }
    }
}

/// How long an attempt may take by default, as a bench model: a large model's float16
/// conversion and DirectML's compilation of it take minutes.
const ATTEMPT_LIMIT: Duration = Duration::from_secs(600);
/// An attempt's limit where none was given: this many times the reference's own time ...
const ATTEMPT_SCALE: f64 = 10.0;
/// ... and never less than this (a DirectML session compiles what the CPU EP only loads).
const ATTEMPT_FLOOR: Duration = Duration::from_secs(30);

pub fn execute(args: &FixArgs) -> Result<ExitStatus> {
    fix(&FixSettings::resolve(args)?)
}

/// Where the EP under test is the reference itself, as written (`--ep auto` on a machine without
/// DirectML, with no option, rewrite or precision of its own), every attempt is the reference's
/// own run: what to say of it. Not refused, as reduce refuses: fix's remedies and precisions are
/// still checked against the original there.
fn judged_against_itself(settings: &FixSettings, runtime: &crate::runtime::Runtime) -> Option<String> {
    let dml = runtime.has_provider(crate::runtime::plan::DML_PROVIDER);
    let reference = attempts::reference_of(&settings.request, settings);
    settings.request.compared_with_itself(&reference, dml).map(|why| {
        format!("{why}; the model passes as it is; fix finds what DirectML needs where DirectML runs (--ep dml)")
    })
}

/// The steps: the outputs checked, the reference run, the remedies that fit tried in order until
/// one set passes, that set pruned, the model written, the report.
fn fix(settings: &FixSettings) -> Result<ExitStatus> {
    if let Some(child) = &settings.child {
        return attempt_as_child(settings, child);
    }
    let reduced_to = check_outputs(settings)?;
    let runtime = settings.ort.load()?;
    let (placement, directml) = resolve_placement(settings, &runtime)?;
    let graph = match settings.decoder {
        true => Graph::read(&engine::decoder_file(&settings.model)?)?,
        false => Graph::read(&settings.model)?,
    };
    let staging = staging_folder(&settings.output)?;
    let mut attempts = Attempts {
        runtime: &runtime,
        settings,
        placement,
        directml,
        staging: staging.path(),
        reference_tokens: Default::default(),
    };
    let reference_seconds = run_reference(&attempts)?;
    attempts.placement = scaled_to_reference(attempts.placement, reference_seconds, settings.quiet);
    let placement = attempts.placement;
    let graph = attempts.with_what_the_reference_reads(graph);
    let fit = remedies_that_fit(&graph, settings);
    let mut record = Record { quiet: settings.quiet, attempts: Vec::new() };
    let reduced_here = staging.path().join("reduced");
    let (passing, located) = search(&attempts, &graph, &fit, &mut record, &reduced_here);
    let passing = passing.map(|(kept, best)| prune(&attempts, kept, best, &mut record));
    if crate::interrupt::interrupted() {
        bail!("interrupted after {} attempts; nothing written", record.attempts.len());
    }
    let located = keep_minimal(located, passing.is_some(), &reduced_here, &reduced_to)?;
    let (verdict, remedies, written) = match &passing {
        // Exit 0 always leaves a model that passes at --output.
        Some((kept, tried)) if kept.is_empty() => ("passes", Vec::new(), Some(write(&attempts, tried, kept)?)),
        Some((kept, tried)) => ("fixed", kept.iter().map(|r| r.flag()).collect(), Some(write(&attempts, tried, kept)?)),
        None => ("not_fixed", Vec::new(), None),
    };
    let report = FixReport {
        schema: FIX_SCHEMA,
        dmlrun_version: env!("CARGO_PKG_VERSION"),
        model: settings.model.clone(),
        // `auto` said as what it chose.
        execution_provider: settings.request.ep.as_chosen(directml),
        reference: settings.compare_ep.to_string(),
        tolerance: settings.tolerance,
        time_limit_s: placement.limit.map(|l| l.as_secs_f64()),
        remedies_that_fit: fit.iter().map(|r| r.flag()).collect(),
        attempts: record.attempts,
        verdict,
        remedies,
        written,
        located,
    };
    print_report(settings, &report)?;
    Ok(if verdict == "not_fixed" { ExitStatus::Failed } else { ExitStatus::Success })
}

/// Where fix will write: a decoder's `-o` is a folder that must not hold anything yet, and the
/// smallest failing model's folder beside it must be free. Returns that folder.
fn check_outputs(settings: &FixSettings) -> Result<PathBuf> {
    if settings.decoder {
        engine::check_output_folder(&settings.output)?;
    }
    let reduced_to = reduced_folder(&settings.output);
    if crate::fsutil::occupied(&reduced_to) {
        bail!(
            "--output {}: {} (where the smallest failing model goes if nothing fixes it) exists and is not an empty folder; remove it or name another --output",
            settings.output.display(),
            reduced_to.display()
        );
    }
    Ok(reduced_to)
}

/// Where the attempts run (children with a time limit, or here) and whether they plan DirectML;
/// the warning where the EP under test is the reference itself.
fn resolve_placement(settings: &FixSettings, runtime: &crate::runtime::Runtime) -> Result<(Placement, bool)> {
    engine::check_request(runtime, &settings.request)?;
    let directml = engine::plans_directml(runtime, &settings.request);
    let placement = PlacementRequest {
        isolation: settings.isolation,
        timeout: settings.timeout,
        default_limit: ATTEMPT_LIMIT,
        directml,
        print_plan: false,
    }
    .resolve()?;
    if let Some(why) = judged_against_itself(settings, runtime) {
        crate::errln!("dmlrun: warning: fix: {why}");
    }
    Ok((placement, directml))
}

/// The reference must run the original: its outputs (a decoder's tokens) are what every attempt
/// is held to.
/// Where no --timeout was given, each attempt may take ATTEMPT_SCALE times what the reference took
/// (its session and its run, at least ATTEMPT_FLOOR, at most ATTEMPT_LIMIT): an attempt that hangs
/// costs a small multiple of the model's own time, not ten minutes, and a zoo is fixed in minutes.
fn scaled_to_reference(placement: Placement, reference_seconds: f64, quiet: bool) -> Placement {
    if !placement.default_limit || !placement.in_children {
        return placement;
    }
    let scaled = Duration::from_secs_f64(reference_seconds * ATTEMPT_SCALE).clamp(ATTEMPT_FLOOR, ATTEMPT_LIMIT);
    if !quiet {
        crate::errln!(
            "fix: each attempt may take {} ({ATTEMPT_SCALE:.0}x the reference's {reference_seconds:.1} s, at least {}); --timeout sets another limit",
            humantime::format_duration(Duration::from_secs(scaled.as_secs().max(1))),
            humantime::format_duration(ATTEMPT_FLOOR),
        );
    }
    Placement { limit: Some(scaled), ..placement }
}

/// Runs the original on the reference; returns how long that took, in seconds.
fn run_reference(attempts: &Attempts) -> Result<f64> {
    let settings = attempts.settings;
    crate::stage::step("the reference run");
    let reference = attempts.reference();
    if let Some(tokens) = reference.tokens {
        let _ = attempts.reference_tokens.set(tokens);
    }
    if let AttemptOutcome::Fails(why) = reference.attempt.outcome {
        bail!(
            "model {}: the reference ({}) cannot run it either, so there is nothing {} could be fixed against: {why}",
            settings.model.display(),
            settings.compare_ep,
            settings.request.ep,
        );
    }
    // Said once the inputs ran: a model that fails anyway fails in one line.
    if !settings.decoder && settings.generated_by_default && settings.inputs.is_empty() && !settings.quiet {
        crate::errln!("{}", crate::inputs::synthetic::generated_by_default("fix"));
    }
    Ok(reference.attempt.seconds)
}

/// The remedies that fit the model and the user did not give (those stay in every attempt).
fn remedies_that_fit(graph: &Graph, settings: &FixSettings) -> Vec<Remedy> {
    let request = &settings.request;
    graph
        .applicable_rewrites()
        .into_iter()
        .filter(|r| !request.rewrites.contains(r))
        .map(Remedy::Rewrite)
        .chain((request.precision == Precision::Fp32 && !settings.decoder).then_some(Remedy::Float16))
        .collect()
}

/// Every attempt, in order, as the report lists them (and stderr says them).
struct Record {
    quiet: bool,
    attempts: Vec<crate::report::fix::Attempt>,
}

impl Record {
    fn note(&mut self, tried: &Tried) {
        if !self.quiet {
            crate::errln!("fix: {}", tried.attempt.describe());
        }
        self.attempts.push(tried.attempt.clone());
    }
}

/// The model as it is; where it fails, reduce finds the node first (into `reduced_here`), and the
/// remedies that got its smallest model through are tried first; then the others, in the fixed
/// order, each added to those before it, each attempt the whole model. Returns the first set that
/// passes and its attempt, and what reduce found.
fn search(
    attempts: &Attempts,
    graph: &Graph,
    fit: &[Remedy],
    record: &mut Record,
    reduced_here: &Path,
) -> (Option<(Vec<Remedy>, Tried)>, Option<Located>) {
    let settings = attempts.settings;
    let mut applied: Vec<Remedy> = Vec::new();
    let mut tried = attempts.run(&applied);
    record.note(&tried);
    let located = match tried.passes() {
        true => None,
        false if settings.decoder => Some(Located {
            error: Some("a decoder is not reduced: reduce takes one model and its inputs, not a generation".into()),
            ..Located::default()
        }),
        false => Some(attempts.locate(reduced_here)),
    };
    if let Some(node) = located.as_ref().and_then(|l| l.node.as_deref()) {
        if !settings.quiet {
            let op = located.as_ref().and_then(|l| l.op_type.as_deref()).unwrap_or("?");
            crate::errln!("fix: reduce pins it on node '{node}' ({op})");
        }
    }
    let on_the_node = |r: &Remedy| located.as_ref().is_some_and(|l| l.passing_on_minimal.contains(&r.flag()));
    let mut queue: std::collections::VecDeque<Remedy> =
        fit.iter().filter(|r| on_the_node(r)).chain(fit.iter().filter(|r| !on_the_node(r))).cloned().collect();
    let mut range_checked = false;
    let passing = loop {
        if tried.passes() {
            break Some((applied.clone(), tried));
        }
        // Float16 ran and an output overflowed: the nodes whose values leave its range stay in
        // float32, tried next (once). A difference of rounding is not that, and no node kept in
        // float32 for a range would mend it.
        let float16 = settings.request.precision == Precision::Fp16 || applied.contains(&Remedy::Float16);
        if float16 && !range_checked && tried.overflowed {
            range_checked = true;
            match attempts.beyond_float16(graph) {
                Ok(nodes) if !nodes.is_empty() => queue.push_front(Remedy::KeepFp32(nodes)),
                Ok(_) => {}
                Err(e) => {
                    crate::errln!("warning: fix: the values beyond float16's range: {}", crate::exit::one_line(&e))
                }
            }
        }
        let Some(remedy) = queue.pop_front().filter(|_| !crate::interrupt::interrupted()) else { break None };
        applied.push(remedy);
        tried = attempts.run(&applied);
        record.note(&tried);
    };
    (passing, located)
}

/// The fewest that still pass: each remedy but the last left out in turn, earliest first
/// (without the last, the attempt before it ran already, and failed).
fn prune(attempts: &Attempts, mut kept: Vec<Remedy>, mut best: Tried, record: &mut Record) -> (Vec<Remedy>, Tried) {
    let last = kept.last().cloned();
    for remedy in kept.clone().into_iter().filter(|r| Some(r) != last.as_ref()) {
        if crate::interrupt::interrupted() {
            break;
        }
        // Nodes kept in float32 mean nothing without float16.
        let without: Vec<Remedy> = kept
            .iter()
            .filter(|r| **r != remedy && !(remedy == Remedy::Float16 && matches!(r, Remedy::KeepFp32(_))))
            .cloned()
            .collect();
        let tried = attempts.run(&without);
        record.note(&tried);
        if tried.passes() {
            kept = without;
            best = tried;
        }
    }
    (kept, best)
}

/// Where nothing made the model pass, the smallest model that shows the failure goes beside the
/// output; where something did, reduce's model is not kept.
fn keep_minimal(
    located: Option<Located>,
    passed: bool,
    reduced_here: &Path,
    reduced_to: &Path,
) -> Result<Option<Located>> {
    let mut located = located;
    if let Some(found) = located.as_mut().filter(|f| f.minimal.is_some()) {
        found.minimal = match passed {
            true => None,
            false => {
                std::fs::rename(reduced_here, reduced_to)
                    .with_context(|| format!("moving the smallest failing model to {}", reduced_to.display()))?;
                Some(reduced_to.to_path_buf())
            }
        };
    }
    Ok(located)
}

/// The model (or a decoder's folder) that passed, written to `--output`.
fn write(attempts: &Attempts, tried: &Tried, kept: &[Remedy]) -> Result<PathBuf> {
    let settings = attempts.settings;
    if settings.decoder {
        engine::write_decoder_folder(
            attempts.runtime,
            &settings.model,
            &attempts.request_with(kept),
            &[],
            &settings.output,
        )?;
        return Ok(settings.output.clone());
    }
    let made = match &tried.model {
        Some(Ok(path)) => path,
        Some(Err(why)) => bail!("--output {}: {why}", settings.output.display()),
        None => bail!("--output {}: no model to write", settings.output.display()),
    };
    let bytes = std::fs::read(made).with_context(|| format!("reading {}", made.display()))?;
    // A model made by a remedy holds its weights; one that passed as it is names its external
    // data relative to the model's own folder.
    crate::formats::onnx_proto::write_model_from(&settings.output, &bytes, crate::fsutil::folder_of(&settings.model))
        .with_context(|| format!("--output {}", settings.output.display()))?;
    Ok(settings.output.clone())
}

/// The report, to `--json` and as text (on stderr where the JSON takes stdout).
fn print_report(settings: &FixSettings, report: &FixReport) -> Result<()> {
    let json_on_stdout = match &settings.json {
        Some(path) => crate::report::write_json(path, report, "--json")?,
        None => false,
    };
    let human = report::human(report);
    if json_on_stdout {
        crate::err!("{human}");
    } else {
        crate::out!("{human}");
    }
    Ok(())
}

/// `bert-dml.onnx` -> `bert-dml-reduced/` beside it.
fn reduced_folder(output: &Path) -> PathBuf {
    let stem = output.file_stem().map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
    output.with_file_name(format!("{stem}-reduced"))
}

/// A temporary folder beside the output (the model to ship is moved from the same disk), gone
/// with everything in it when fix ends.
fn staging_folder(output: &Path) -> Result<tempfile::TempDir> {
    crate::fsutil::temp_dir_beside(output, ".dmlrun-fix-").with_context(|| format!("--output {}", output.display()))
}

/// A child's side: the attempt its parent handed it (or the reference's run), here, its record
/// appended to the runner's results file, its model (where it passed) in the parent's staging
/// folder.
fn attempt_as_child(settings: &FixSettings, child: &crate::batch::Handoff) -> Result<ExitStatus> {
    let runtime = settings.ort.load()?;
    let attempts = Attempts {
        runtime: &runtime,
        settings,
        placement: Placement::default(),
        directml: false,
        // Each attempt names its own.
        staging: Path::new("."),
        reference_tokens: Default::default(),
    };
    crate::batch::serve_parent(&attempts, child)?;
    Ok(ExitStatus::Success)
}
