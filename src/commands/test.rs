//! `dmlrun test PATH…`: run ONNX test-data folders and compare outputs, for CI.

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::Result;

use crate::batch;
use crate::cases::{self, Cases};
use crate::cli::TestArgs;
use crate::exit::ExitStatus;
use crate::isolation::PlacementRequest;
use crate::progress::Counting;
use crate::report::export::Exports;
use crate::report::github;
use crate::report::validation::{expectations, human, CaseResult, Summary, TestReport, TEST_SCHEMA};
use crate::runtime::engine;
use crate::runtime::plan::{PlanRequest, Precision};
use crate::settings::TestSettings;
use crate::suites::testdata;

/// Cases per child process under isolation: few enough that a child's death re-runs little,
/// many enough that process starts (seconds each under Wine) stay a small share.
const CASES_PER_CHILD: usize = 100;

pub fn execute(args: &TestArgs) -> Result<ExitStatus> {
    test(&TestSettings::resolve(args)?)
}

fn test(settings: &TestSettings) -> Result<ExitStatus> {
    let run = &settings.batch;
    let runtime = run.ort.load()?;
    let cases = Cases { runtime: &runtime, check: &settings.check, saved: run.saved.as_ref() };
    if let Some(child) = &run.child {
        // An isolation child runs the cases its parent resolved, and nothing else.
        batch::serve_parent(&cases, child)?;
        return Ok(ExitStatus::Success);
    }
    // Every export checked before any case runs: a typo in a folder costs nothing.
    let mut exports =
        Exports::checked(crate::report::test_exports(&settings.exports, settings.write_expect.as_deref())?)?;
    let testdata::Discovery { cases: found, skipped } = testdata::discover(&settings.paths)?;
    // The shard first, on the whole sorted list, so every shard of every machine agrees.
    let (found, shard) = batch::shard(found, run.shard.as_ref(), |c| c.name.as_str());
    let files: BTreeMap<String, std::path::PathBuf> = found.iter().map(|c| (c.name.clone(), c.model.clone())).collect();
    let expectations = match &settings.expect {
        Some(path) => expectations::read(path)?,
        None => BTreeMap::new(),
    };
    engine::check_flags(&runtime, &settings.request)?;
    let compare = settings.check.reference.as_ref().map(|r| (&r.ep, r.optimization_level));
    engine::warn_if_compared_with_itself(&runtime, &settings.request, compare);
    // What would fail every case (DirectML missing, an adapter that does not exist) is said once.
    engine::check_request(&runtime, &settings.request)?;
    // DirectML sessions share one device queue: never run them concurrently.
    let directml = engine::plans_directml(&runtime, &settings.request)
        || settings.check.reference_request(&settings.request).is_some_and(|r| engine::plans_directml(&runtime, &r));
    let placement = PlacementRequest { directml, print_plan: false, ..run.placement }.resolve()?;
    let entries = cases::preflight(&runtime, &settings.request, found, shard.as_ref())?;
    let options =
        batch::Options::new(placement, directml, (settings.jobs, CASES_PER_CHILD), Counting::Cases, run.quiet);
    let mut report = TestReport {
        schema: TEST_SCHEMA.to_string(),
        dmlrun_version: env!("CARGO_PKG_VERSION").to_string(),
        onnxruntime: runtime.library.clone(),
        plan_request: describe_request(&settings.request),
        reference: settings.check.reference_request(&settings.request).as_ref().map(describe_request),
        tolerance: Some(settings.check.tolerances.default),
        summary: Summary::default(),
        cases: Vec::new(),
        skipped,
        interrupted: false,
        shard,
        isolation: placement,
    };
    let total = entries.len();
    let started = Instant::now();
    let mut results: Vec<Option<CaseResult>> = (0..total).map(|_| None).collect();
    batch::run(&cases, entries, &options, &mut |index, result| {
        results[index] = Some(result);
        if exports.due() {
            report.settle(&results, &expectations, started.elapsed());
            exports.rewrite(&report)?;
        }
        Ok(())
    })?;
    report.interrupted = crate::interrupt::interrupted();
    report.settle(&results, &expectations, started.elapsed());
    let json_on_stdout = exports.finish(&report)?;
    let human = human::render(&report, settings.verbose, run.quiet, settings.expect.as_deref());
    // With JSON on stdout, the human summary moves to stderr.
    if json_on_stdout {
        crate::err!("{human}");
    } else {
        crate::out!("{human}");
    }
    if report.interrupted {
        crate::errln!("dmlrun: interrupted after {} of {total} cases; the report covers those", report.cases.len());
    }
    if let Some(target) = &run.github {
        let outcome = github::of_test(&report, &files, settings.expect.is_some(), target.workspace.as_deref());
        github::publish(&outcome, target)?;
    }
    let failed =
        if settings.expect.is_some() { !report.summary.unexpected.is_empty() } else { report.summary.not_passed() > 0 };
    Ok(ExitStatus::of_checks(failed, report.interrupted))
}

fn describe_request(r: &PlanRequest) -> String {
    let mut parts = vec![format!("ep {}", r.ep)];
    if let Some(d) = r.device {
        parts.push(format!("device {d}"));
    }
    parts.push(format!("opt-level {:?}", r.optimization_level).to_lowercase());
    if let Some(n) = r.intra_op_threads {
        parts.push(format!("intra-threads {n}"));
    }
    if r.precision != Precision::Fp32 {
        parts.push(format!("precision {}", r.precision));
    }
    // What tells two runs apart where nothing above does (merge --compare labels runs by it).
    parts.extend(r.rewrites.iter().map(|rw| rw.flag()));
    parts.extend(r.session_config.iter().map(|(k, v)| format!("session-config {k}={v}")));
    parts.extend(r.ep_options.iter().map(|(k, v)| format!("ep-option {k}={v}")));
    parts.join(", ")
}
