//! Writing reports to the files the output flags name, one [`Exporter`] per format and report
//! kind, as hyperfine's `export/` does: checked before any work (a folder that does not exist
//! is said before the first model runs, not after it), rewritten as the work goes on (each file
//! atomically, so a run killed half-way leaves whole files of what it finished), and the one
//! that goes to stdout (`-`) written once, at the end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// A format a report can be written in, each named by its flag. Adding one: a variant here with
/// its flag and help (the compiler asks for both), its place in [`FORMATS`], and an arm in the
/// `Formats::exporter` of each report kind that writes it, with the file that renders it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    Json,
    Csv,
    Markdown,
    Html,
    Junit,
}

/// Every format, in the order the help lists them.
pub const FORMATS: [Format; 5] = [Format::Json, Format::Csv, Format::Markdown, Format::Html, Format::Junit];

impl Format {
    /// `--json`: the flag that asks for it, how help and errors name it.
    pub fn flag(self) -> &'static str {
        match self {
            Format::Json => "--json",
            Format::Csv => "--csv",
            Format::Markdown => "--markdown",
            Format::Html => "--html",
            Format::Junit => "--junit",
        }
    }

    /// The flag without its dashes: clap's name for it.
    pub fn long(self) -> &'static str {
        &self.flag()[2..]
    }

    /// The flag's help: its first paragraph the short help, the whole the long one.
    pub fn help(self) -> &'static str {
        match self {
            Format::Json => {
                "Write the report as JSON to FILE (\"-\" for stdout instead of the summary).\n\n\
                 Example: --json results.json"
            }
            Format::Csv => {
                "Write a CSV table to FILE (\"-\" for stdout): a row per case (test), model (bench) or \
                 prompt (generate), with its status and figures.\n\n\
                 Example: --csv bench.csv"
            }
            Format::Markdown => {
                "Write a Markdown table to FILE (\"-\" for stdout), as --csv, for a pull request or a \
                 README (merge --compare: the comparison).\n\n\
                 Example: --markdown - >> RESULTS.md"
            }
            Format::Html => {
                "Write a self-contained HTML page to FILE. test: the totals and every case with its \
                 status (filterable) and where mismatching outputs part; bench: the environment, each \
                 model's latency distribution with p50/p90/p99, p50/p99 across models, and with \
                 --compare-ep, --baseline and --profile their comparisons; generate: the figures and a \
                 plot of each token's decode latency over the sequence (where the KV cache's growth \
                 shows).\n\n\
                 Example: --html report.html"
            }
            Format::Junit => {
                "Write JUnit XML to FILE (\"-\" for stdout): a case per test case, bench model or \
                 generate prompt, failed where it failed (bench: or regressed against the baseline, the \
                 verdict in its output; generate: where its tokens part from --compare-ep's).\n\n\
                 Example: --junit results.xml"
            }
        }
    }
}

/// Every format's flag, `--json` ...: what a batch's child must not write (its parent does).
pub fn report_flags() -> Vec<&'static str> {
    FORMATS.iter().map(|f| f.flag()).collect()
}

/// Where a batch's report goes, a file a format (`-` for stdout), as the flags of [`FORMATS`] name
/// them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReportFiles(pub BTreeMap<Format, PathBuf>);

impl ReportFiles {
    /// Whether one of them goes to stdout.
    pub fn any_on_stdout(&self) -> bool {
        self.0.values().any(|p| p == Path::new("-"))
    }
}

/// A report kind's formats: the exporter of each format it is written in.
pub trait Formats: Sized {
    /// What the report is, as a format it is not written in is refused: `a comparison`.
    const WHAT: &'static str;

    fn exporter(format: Format) -> Option<Box<dyn Exporter<Self>>>;

    /// The exports `files` ask for; a format this report is not written in is refused, naming
    /// its flag.
    fn exports<'a>(files: &ReportFiles) -> Result<Vec<Option<Export<'a, Self>>>>
    where
        Self: 'a,
    {
        files
            .0
            .iter()
            .map(|(&format, path)| match Self::exporter(format) {
                Some(exporter) => Ok(Some(Export { flag: format.flag(), path: path.clone(), exporter })),
                None => bail!("{}: there is no such file for {}", format.flag(), Self::WHAT),
            })
            .collect()
    }
}

/// One output format of one report kind.
pub trait Exporter<R> {
    /// The file's contents for this report.
    fn render(&self, report: &R) -> Result<String>;
}

/// Any function from the report to its text is an exporter.
impl<R, F: Fn(&R) -> Result<String>> Exporter<R> for F {
    fn render(&self, report: &R) -> Result<String> {
        self(report)
    }
}

/// One export a flag asks for.
pub struct Export<'a, R> {
    /// `--json`: how errors name it.
    pub flag: &'static str,
    pub path: PathBuf,
    pub exporter: Box<dyn Exporter<R> + 'a>,
}

impl<'a, R> Export<'a, R> {
    /// The export `flag` asks for, if it was given.
    pub fn of(flag: &'static str, path: Option<&Path>, exporter: impl Exporter<R> + 'a) -> Option<Export<'a, R>> {
        path.map(|path| Export { flag, path: path.to_path_buf(), exporter: Box::new(exporter) })
    }
}

/// A command's exports.
pub struct Exports<'a, R> {
    exports: Vec<Export<'a, R>>,
    /// When the files were last rewritten, and how long that took.
    last: Option<(Instant, Duration)>,
}

impl<'a, R> Exports<'a, R> {
    /// The exports asked for, checked before any work: at most one to stdout, and each file's
    /// folder one that exists and takes a new file.
    pub fn checked(exports: impl IntoIterator<Item = Option<Export<'a, R>>>) -> Result<Exports<'a, R>> {
        let exports: Vec<Export<R>> = exports.into_iter().flatten().collect();
        let asked: Vec<(&str, Option<&Path>)> = exports.iter().map(|e| (e.flag, Some(e.path.as_path()))).collect();
        super::check_one_on_stdout(&asked)?;
        for export in exports.iter().filter(|e| e.path != Path::new("-")) {
            check_writable(&export.path).with_context(|| format!("{} {}", export.flag, export.path.display()))?;
        }
        Ok(Exports { exports, last: None })
    }

    /// Whether one export goes to stdout (then nothing else may).
    pub fn uses_stdout(&self) -> bool {
        self.exports.iter().any(|e| e.path == Path::new("-"))
    }

    /// Whether [`Exports::rewrite`] would write now: a caller that must build the report first
    /// asks before it does.
    pub fn due(&self) -> bool {
        let written = self.exports.iter().any(|e| e.path != Path::new("-"));
        written && self.last.is_none_or(|(at, took)| at.elapsed() >= took * 10)
    }

    /// Rewrites every file export with the report so far. A rewrite is skipped while less time
    /// has passed since the last than ten times what that one took, so that a batch of
    /// thousands of quick items does not spend its time rewriting files; [`Exports::finish`]
    /// writes the last word.
    pub fn rewrite(&mut self, report: &R) -> Result<()> {
        if !self.due() {
            return Ok(());
        }
        let started = Instant::now();
        crate::interrupt::whole(|| self.write_files(report))?;
        self.last = Some((Instant::now(), started.elapsed()));
        Ok(())
    }

    /// Writes every export, the one to stdout included; no Ctrl-C ends the process half-way
    /// through. Returns whether one went to stdout.
    pub fn finish(&mut self, report: &R) -> Result<bool> {
        crate::interrupt::whole(|| {
            self.write_files(report)?;
            for export in self.exports.iter().filter(|e| e.path == Path::new("-")) {
                crate::out!("{}", export.exporter.render(report)?);
            }
            Ok(self.uses_stdout())
        })
    }

    /// Writes the file exports; the caller holds off a Ctrl-C that would quit meanwhile.
    fn write_files(&self, report: &R) -> Result<()> {
        for export in self.exports.iter().filter(|e| e.path != Path::new("-")) {
            let text = export.exporter.render(report)?;
            crate::fsutil::write_atomic(&export.path, text.as_bytes())
                .with_context(|| format!("{} {}", export.flag, export.path.display()))?;
        }
        Ok(())
    }
}

/// Whether a file can be written at `path` as [`crate::fsutil::write_atomic`] writes it: a
/// device, FIFO or terminal opens for writing; otherwise (a link followed to its target) the
/// folder exists, is a folder, and takes a new file (tried with a hidden one, removed at once).
/// Says which in one line.
pub fn check_writable(path: &Path) -> Result<()> {
    if path.is_dir() {
        bail!("is a folder; give a file name");
    }
    let path = match crate::fsutil::destination(path)? {
        crate::fsutil::Destination::InPlace(at) => {
            // Opened without truncating: a regular file behind /dev/stdout keeps what it has.
            return std::fs::OpenOptions::new()
                .write(true)
                .open(&at)
                .map(drop)
                .map_err(|e| anyhow::anyhow!("cannot write to it: {}", crate::fsutil::os_words(&e)));
        }
        crate::fsutil::Destination::Replace(at) => at,
    };
    let path = path.as_path();
    let folder = crate::fsutil::folder_of(path);
    if !folder.exists() {
        bail!("the folder {} does not exist", folder.display());
    }
    if !folder.is_dir() {
        bail!("{} is not a folder", folder.display());
    }
    tempfile::Builder::new()
        .prefix(".dmlrun-check-")
        .tempfile_in(folder)
        .map(drop)
        .map_err(|e| anyhow::anyhow!("cannot create a file in {}: {}", folder.display(), crate::fsutil::os_words(&e)))
}

/// Checks before any work that files can be written into folder `dir` (made later, with its
/// parents, where it does not exist yet): a run that fails only when it saves loses its report.
pub fn check_writable_folder(dir: &Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!("exists and is not a folder");
    }
    // The folder itself, or the nearest of its parents that exists: where the first file or
    // folder will be created.
    let existing = dir.ancestors().find(|a| a.as_os_str().is_empty() || a.exists()).unwrap_or(Path::new("."));
    let existing = if existing.as_os_str().is_empty() { Path::new(".") } else { existing };
    if !existing.is_dir() {
        bail!("{} is not a folder", existing.display());
    }
    tempfile::Builder::new()
        .prefix(".dmlrun-check-")
        .tempfile_in(existing)
        .map(drop)
        .map_err(|e| anyhow::anyhow!("cannot create a file in {}: {}", existing.display(), crate::fsutil::os_words(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_to_save_into_is_checked_up_to_its_nearest_existing_parent() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_writable_folder(dir.path()).is_ok());
        assert!(check_writable_folder(&dir.path().join("new/deeper")).is_ok());
        let file = dir.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        assert_eq!(check_writable_folder(&file).unwrap_err().to_string(), "exists and is not a folder");
        let under_file = check_writable_folder(&file.join("sub")).unwrap_err().to_string();
        assert!(under_file.ends_with("is not a folder"), "{under_file}");
    }

    #[test]
    fn a_missing_folder_or_two_exports_on_stdout_are_refused_before_any_work() {
        let text = |r: &String| Ok(r.clone());
        let err = Exports::<String>::checked([Export::of("--json", Some(Path::new("/nonexistent/x.json")), text)])
            .err()
            .unwrap();
        assert_eq!(crate::exit::one_line(&err), "--json /nonexistent/x.json: the folder /nonexistent does not exist");
        let dash = Some(Path::new("-"));
        let err = Exports::<String>::checked([Export::of("--json", dash, text), Export::of("--csv", dash, text)])
            .err()
            .unwrap();
        assert!(err.to_string().starts_with("--json - and --csv -: only one export can go to stdout"), "{err}");
    }

    #[test]
    fn files_are_rewritten_as_the_report_grows_and_leave_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.txt");
        let mut exports =
            Exports::checked([Export::of("--json", Some(path.as_path()), |r: &String| Ok(r.clone()))]).unwrap();
        exports.rewrite(&"one".to_string()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one");
        assert!(!exports.finish(&"two".to_string()).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
