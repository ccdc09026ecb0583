//! File writing that never leaves a partial file behind.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Where a write to a path lands, as a shell's `>` would put it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// A regular file or a new path (a symbolic link followed to its target, so the link stays):
    /// written beside it and renamed over it.
    Replace(PathBuf),
    /// Something that is not a regular file (a device such as `/dev/null`, a FIFO, `/dev/stdout`):
    /// opened and written as it is, never replaced.
    InPlace(PathBuf),
}

/// Where a write to `path` lands: symbolic links followed to their target (created where a link
/// dangles), and what is not a regular file written in place.
pub fn destination(path: &Path) -> Result<Destination> {
    // /dev/stdout and /proc/self/fd/N name an open file of this process, whatever it is (a
    // regular file a shell redirected there would be replaced by a rename, its output lost).
    if (path.starts_with("/dev") || path.starts_with("/proc")) && path.exists() && !path.is_dir() {
        return Ok(Destination::InPlace(path.to_path_buf()));
    }
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        let Ok(own) = std::fs::symlink_metadata(&at) else {
            return Ok(Destination::Replace(at));
        };
        if !own.file_type().is_symlink() {
            return Ok(if own.is_file() || own.is_dir() { Destination::Replace(at) } else { Destination::InPlace(at) });
        }
        match std::fs::metadata(&at) {
            Ok(target) if !target.is_file() && !target.is_dir() => return Ok(Destination::InPlace(at)),
            Ok(_) => {
                let resolved = std::fs::canonicalize(&at)
                    .map_err(|e| anyhow::anyhow!("{}: cannot follow the link: {}", path.display(), os_words(&e)))?;
                return Ok(Destination::Replace(resolved));
            }
            // A dangling link: the file it names is made.
            Err(_) => {
                let target = std::fs::read_link(&at)
                    .map_err(|e| anyhow::anyhow!("{}: cannot read the link: {}", path.display(), os_words(&e)))?;
                at = if target.is_absolute() { target } else { folder_of(&at).join(target) };
            }
        }
    }
    anyhow::bail!("{}: too many levels of symbolic links", path.display())
}

/// Writes `bytes` to `path` as every file dmlrun writes is written (see [`destination`]): a
/// regular file through a temporary file beside it renamed into place, so readers see either the
/// old file or the complete new one and a failure leaves nothing; a device, FIFO or terminal in
/// place.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    match destination(path)? {
        Destination::InPlace(at) => {
            let written = |e: std::io::Error| anyhow::anyhow!("writing {}: {}", path.display(), os_words(&e));
            let mut file = std::fs::OpenOptions::new().write(true).open(&at).map_err(written)?;
            file.write_all(bytes).and_then(|()| file.flush()).map_err(written)
        }
        Destination::Replace(at) => replace(path, &at, bytes),
    }
}

/// Writes `bytes` beside `at` and renames them over it; `path` (as given) names it in errors.
fn replace(path: &Path, at: &Path, bytes: &[u8]) -> Result<()> {
    let dir = folder_of(at);
    let mut builder = tempfile::Builder::new();
    builder.prefix(".dmlrun-").suffix(".partial");
    // A temporary file is private (0600) by default; the written file is an ordinary output, so it
    // gets what the user's umask gives any new file, as `>` in a shell would.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir).map_err(|e| {
        anyhow::anyhow!("writing {}: cannot create a file in {}: {}", path.display(), dir.display(), os_words(&e))
    })?;
    let written = |e: std::io::Error| anyhow::anyhow!("writing {}: {}", path.display(), os_words(&e));
    tmp.write_all(bytes).map_err(written)?;
    tmp.as_file().sync_all().map_err(written)?;
    tmp.persist(at).map_err(|e| written(e.error))?;
    Ok(())
}

/// The folder `path` is in: `.` for a bare file name.
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A temporary folder beside `path`, where what goes there is made and then renamed into place
/// (a rename never crosses disks); removed with everything in it when dropped. The folder `path`
/// goes in is made with its parents where it does not exist yet, as every folder a command fills
/// is (`--save-outputs`, `--save-models`); a file's folder (`--json`) must exist. The error
/// names the folder in plain words, never the temporary name.
pub fn temp_dir_beside(path: &Path, prefix: &str) -> Result<tempfile::TempDir> {
    let folder = folder_of(path);
    if folder.exists() && !folder.is_dir() {
        anyhow::bail!("{} is not a folder", folder.display());
    }
    std::fs::create_dir_all(folder)
        .map_err(|e| anyhow::anyhow!("cannot create the folder {}: {}", folder.display(), os_words(&e)))?;
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(folder)
        .map_err(|e| anyhow::anyhow!("cannot write in {}: {}", folder.display(), os_words(&e)))
}

/// Refuses a folder a command will fill whole (`reduce -o`, `fix -o` of a genai folder,
/// `generate --save-model`) where something is there already: a file, or a folder with anything
/// in it. Absent or empty is free.
pub fn check_free_folder(path: &Path) -> Result<()> {
    if path.is_file() {
        anyhow::bail!("is a file; this names a folder to write (name a new one)");
    }
    if occupied(path) {
        anyhow::bail!("exists and is not an empty folder (name a new one)");
    }
    Ok(())
}

/// A text file's contents (a label list, a prompt, a manifest): the OS's refusal in plain words,
/// and a file that is not UTF-8 said so with where (not "stream did not contain valid UTF-8").
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| anyhow::anyhow!(os_words(&e)))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        anyhow::anyhow!("not UTF-8 text (byte 0x{:02X} on line {line}); save it as UTF-8", bytes[at])
    })
}

/// Whether something is at `path` that a command must not write over: a file, or a folder with
/// anything in it (absent, or an empty folder, is free).
pub fn occupied(path: &Path) -> bool {
    path.exists() && std::fs::read_dir(path).map_or(true, |mut entries| entries.next().is_some())
}

/// An OS error as a person reads it: what went wrong, without the library's wording around it
/// (a temporary file's quoted name, `(os error 2)`).
pub fn os_words(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    let words = match error.kind() {
        ErrorKind::NotFound => "no such file or folder",
        ErrorKind::PermissionDenied => "permission denied",
        ErrorKind::AlreadyExists => "it already exists",
        ErrorKind::IsADirectory => "it is a folder",
        ErrorKind::NotADirectory => "a part of the path is not a folder",
        ErrorKind::StorageFull => "the disk is full",
        ErrorKind::ReadOnlyFilesystem => "the file system is read-only",
        ErrorKind::UnexpectedEof => "the file ends too soon",
        _ => "",
    };
    if !words.is_empty() {
        return words.to_string();
    }
    // The OS's own message for its code, without the code.
    let message = match error.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code).to_string(),
        None => error.to_string(),
    };
    let message = message.split(" (os error").next().unwrap_or(&message).trim().to_string();
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => "an error the system gave no words for".to_string(),
    }
}

/// Files that ONNX Runtime writes itself (the optimised-model cache, the profile), which dmlrun
/// cannot write atomically: they are written under a hidden `.partial` name in the final
/// directory, renamed into place with [`OrtWritten::keep`], and removed when the guard is dropped
/// without that (a failed run). ONNX Runtime also writes a profile when a session is destroyed,
/// so the guard must outlive the session: declare it first.
pub struct OrtWritten {
    dir: PathBuf,
    partial_prefix: String,
}

impl OrtWritten {
    /// Files whose names start with `.NAME.partial` in `dir`.
    pub fn new(dir: &Path, name: &str) -> OrtWritten {
        OrtWritten { dir: dir.to_path_buf(), partial_prefix: format!(".{name}.partial") }
    }

    /// The path (or, for a profile, the prefix) to hand ONNX Runtime.
    pub fn partial_path(&self) -> PathBuf {
        self.dir.join(&self.partial_prefix)
    }

    /// Renames what ONNX Runtime wrote at `written` (a name under [`Self::partial_path`]) to
    /// `NAME` plus whatever ONNX Runtime appended, and returns the final path.
    pub fn keep(&self, written: &Path) -> Result<PathBuf> {
        let file_name = written.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let suffix = file_name
            .strip_prefix(self.partial_prefix.as_str())
            .ok_or_else(|| anyhow::anyhow!("{} is not a file dmlrun asked ONNX Runtime to write", written.display()))?;
        let name = &self.partial_prefix[1..self.partial_prefix.len() - ".partial".len()];
        let kept = self.dir.join(format!("{name}{suffix}"));
        std::fs::rename(self.dir.join(file_name), &kept).with_context(|| format!("keeping {}", kept.display()))?;
        Ok(kept)
    }
}

impl Drop for OrtWritten {
    fn drop(&mut self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        for entry in entries.flatten() {
            if entry.file_name().to_str().is_some_and(|n| n.starts_with(&self.partial_prefix)) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Paths in JSON, whatever bytes the OS allows in them: a UTF-8 path as its string, any other as
/// its bytes (`{"unix": [...]}`) or UTF-16 units (`{"windows": [...]}`), so that a file whose
/// name is not UTF-8 travels to an isolation child and back into reports unchanged. Serde's own
/// `PathBuf` refuses such a path. `#[serde(with = "crate::fsutil::any_path")]`; `option` and
/// `vec` for `Option<PathBuf>` and `Vec<PathBuf>`.
/// A file name or path as text a person can tell apart from any other: UTF-8 as it is, each byte
/// that is not UTF-8 as `\xNN` (on Windows, an unpaired surrogate's WTF-8 bytes). Two names
/// that differ print differently, where `to_string_lossy` prints both as U+FFFD.
pub fn escaped(text: &std::ffi::OsStr) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for chunk in text.as_encoded_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
}

/// Serde for a path in a report people and tools read: always a string ([`escaped`] where it
/// is not UTF-8). Reads what [`any_path`] writes too, so older reports still merge. Not for
/// what a child process must open: that is [`any_path`], which is exact.
pub mod text_path {
    use std::path::{Path, PathBuf};

    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(path: &Path, to: S) -> Result<S::Ok, S::Error> {
        to.serialize_str(&super::escaped(path.as_os_str()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<PathBuf, D::Error> {
        super::any_path::deserialize(from)
    }
}

pub mod any_path {
    use std::path::{Path, PathBuf};

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Encoded {
        Text(String),
        Unix { unix: Vec<u8> },
        Windows { windows: Vec<u16> },
    }

    fn encode(path: &Path) -> Encoded {
        if let Some(text) = path.to_str() {
            return Encoded::Text(text.to_string());
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            Encoded::Unix { unix: path.as_os_str().as_bytes().to_vec() }
        }
        #[cfg(windows)]
        {
            use std::os::windows::ffi::OsStrExt;
            Encoded::Windows { windows: path.as_os_str().encode_wide().collect() }
        }
        #[cfg(not(any(unix, windows)))]
        Encoded::Text(path.to_string_lossy().into_owned())
    }

    fn decode(encoded: Encoded) -> PathBuf {
        match encoded {
            Encoded::Text(text) => PathBuf::from(text),
            #[cfg(unix)]
            Encoded::Unix { unix } => {
                use std::os::unix::ffi::OsStringExt;
                PathBuf::from(std::ffi::OsString::from_vec(unix))
            }
            #[cfg(windows)]
            Encoded::Windows { windows } => {
                use std::os::windows::ffi::OsStringExt;
                PathBuf::from(std::ffi::OsString::from_wide(&windows))
            }
            // A path written on the other OS: as near as this one can name it.
            #[allow(unreachable_patterns)]
            Encoded::Unix { unix } => PathBuf::from(String::from_utf8_lossy(&unix).into_owned()),
            #[allow(unreachable_patterns)]
            Encoded::Windows { windows } => PathBuf::from(String::from_utf16_lossy(&windows)),
        }
    }

    pub fn serialize<S: Serializer>(path: &Path, to: S) -> Result<S::Ok, S::Error> {
        encode(path).serialize(to)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<PathBuf, D::Error> {
        Encoded::deserialize(from).map(decode)
    }

    pub mod option {
        use super::*;

        pub fn serialize<S: Serializer>(path: &Option<PathBuf>, to: S) -> Result<S::Ok, S::Error> {
            path.as_deref().map(encode).serialize(to)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<Option<PathBuf>, D::Error> {
            Ok(Option::<Encoded>::deserialize(from)?.map(decode))
        }
    }

    pub mod vec {
        use super::*;

        pub fn serialize<S: Serializer>(paths: &[PathBuf], to: S) -> Result<S::Ok, S::Error> {
            paths.iter().map(|p| encode(p)).collect::<Vec<_>>().serialize(to)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<Vec<PathBuf>, D::Error> {
            Ok(Vec::<Encoded>::deserialize(from)?.into_iter().map(decode).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_file_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.bin");
        write_atomic(&path, b"hello").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"hello");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("a.bin")]);
    }

    #[cfg(unix)]
    #[test]
    fn written_files_get_the_umask_mode_not_a_temporary_files_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.json");
        write_atomic(&path, b"{}").unwrap();
        // What the process's umask makes of a new ordinary file, read off one made with std::fs.
        let plain = dir.path().join("plain");
        std::fs::write(&plain, b"").unwrap();
        let expected = std::fs::metadata(&plain).unwrap().permissions().mode() & 0o777;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, expected);
        assert_ne!(expected, 0o600, "this test needs a umask that lets group or others read new files");
    }

    #[test]
    fn ort_written_files_are_kept_under_their_name_or_removed() {
        let dir = tempfile::tempdir().unwrap();
        let names = || {
            let mut v: Vec<String> =
                std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
            v.sort();
            v
        };
        {
            let profile = OrtWritten::new(dir.path(), "model");
            // What ONNX Runtime does with a profile prefix: appends a timestamp and .json.
            let written = PathBuf::from(format!("{}_2026-11-22.json", profile.partial_path().display()));
            std::fs::write(&written, "[]").unwrap();
            assert_eq!(profile.keep(&written).unwrap(), dir.path().join("model_2026-11-22.json"));
            // Written again by a session's destructor after the guard decided: removed.
            std::fs::write(profile.partial_path(), "partial").unwrap();
        }
        assert_eq!(names(), vec!["model_2026-11-22.json"]);
        {
            let failed = OrtWritten::new(dir.path(), "other.onnx");
            std::fs::write(failed.partial_path(), "half a model").unwrap();
        }
        assert_eq!(names(), vec!["model_2026-11-22.json"], "a failed run leaves nothing behind");
    }

    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_utf8_goes_through_json_unchanged() {
        use std::os::unix::ffi::OsStringExt;
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct Holder {
            #[serde(with = "any_path")]
            one: PathBuf,
            #[serde(with = "any_path::option")]
            maybe: Option<PathBuf>,
            #[serde(with = "any_path::vec")]
            many: Vec<PathBuf>,
        }
        let odd = PathBuf::from(std::ffi::OsString::from_vec(b"models/caf\xe9.onnx".to_vec()));
        let value = Holder { one: odd.clone(), maybe: Some(odd.clone()), many: vec![odd, "plain.onnx".into()] };
        let text = serde_json::to_string(&value).unwrap();
        assert!(text.contains(r#""plain.onnx""#), "{text}");
        assert_eq!(serde_json::from_str::<Holder>(&text).unwrap(), value);
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_utf8_is_escaped_and_a_report_path_is_a_string() {
        use std::os::unix::ffi::OsStringExt;
        let a = std::ffi::OsString::from_vec(b"nu/\xff.onnx".to_vec());
        let b = std::ffi::OsString::from_vec(b"nu/\xfe.onnx".to_vec());
        assert_eq!(escaped(&a), "nu/\\xff.onnx");
        assert_ne!(escaped(&a), escaped(&b));
        assert_eq!(escaped(std::ffi::OsStr::new("café/x.onnx")), "café/x.onnx");
        #[derive(serde::Serialize, serde::Deserialize)]
        struct Reported {
            #[serde(with = "text_path")]
            path: PathBuf,
        }
        let text = serde_json::to_string(&Reported { path: PathBuf::from(a) }).unwrap();
        assert_eq!(text, r#"{"path":"nu/\\xff.onnx"}"#);
        // An older report's exact form still reads.
        let old: Reported = serde_json::from_str(r#"{"path":{"unix":[110,117]}}"#).unwrap();
        assert_eq!(old.path, PathBuf::from("nu"));
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_written_through_to_its_target_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.json");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("target.json", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        // A dangling link: its target is made.
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink("sub/../made.json", &dangling).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        write_atomic(&dangling, b"made").unwrap();
        assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(dir.path().join("made.json")).unwrap(), "made");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_written_in_place_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        assert_eq!(destination(&fifo).unwrap(), Destination::InPlace(fifo.clone()));
        write_atomic(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }

    #[cfg(unix)]
    #[test]
    fn dev_null_and_stdout_are_written_in_place() {
        // Only asked where a write would land: writing the system's own /dev/null is never tried.
        assert_eq!(destination(Path::new("/dev/null")).unwrap(), Destination::InPlace("/dev/null".into()));
        assert_eq!(destination(Path::new("/dev/stdout")).unwrap(), Destination::InPlace("/dev/stdout".into()));
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new.json");
        assert_eq!(destination(&new).unwrap(), Destination::Replace(new.clone()));
    }

    #[test]
    fn missing_directory_is_an_error_naming_the_file_and_no_temporary_one() {
        let err = format!("{:#}", write_atomic(Path::new("/nonexistent-dir/x.npy"), b"x").unwrap_err());
        assert_eq!(
            err,
            "writing /nonexistent-dir/x.npy: cannot create a file in /nonexistent-dir: no such file or folder"
        );
    }
}
