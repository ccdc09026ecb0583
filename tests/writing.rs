//! Every file dmlrun writes goes through one writer: a regular file or a new path atomically (a
//! temporary file renamed into place), a symbolic link through to its target, and what is not a
//! regular file (a device, a FIFO, /dev/stdout) in place, never replaced. Device nodes are made
//! in a temporary folder (as root, which CI is), never the system's own.
#![cfg(unix)]

mod common;

use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use common::{dmlrun, test_model};

fn run_with_json(json: &Path) -> std::process::Output {
    dmlrun()
        .arg(test_model("add_mul.onnx"))
        .args(["--generate", "ones", "--iterations", "1", "-q", "--json"])
        .arg(json)
        .output()
        .unwrap()
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A character device node like /dev/null (1, 3) or /dev/full (1, 7), made at `path`.
fn char_device(path: &Path, minor: u32) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mknod only creates the node.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, minor)) };
    assert_eq!(made, 0, "mknod {}: {}", path.display(), std::io::Error::last_os_error());
    // Writable by all, as /dev/null is (mknod's mode passed through the umask).
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666)).unwrap();
}

/// The binary, its ONNX Runtime and add_mul.onnx copied into `dir`, for a run as nobody: CI's
/// clone may sit in a folder nobody cannot enter.
fn copied_for_nobody(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let exe = assert_cmd::cargo::cargo_bin("dmlrun");
    let bin = dir.join("dmlrun");
    std::fs::copy(&exe, &bin).unwrap();
    for entry in std::fs::read_dir(exe.parent().unwrap()).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name().to_string_lossy().starts_with("libonnxruntime") {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
    }
    let model = dir.join("add_mul.onnx");
    std::fs::copy(test_model("add_mul.onnx"), &model).unwrap();
    (bin, model)
}

#[test]
fn a_report_to_a_device_node_is_written_into_it_and_the_node_stays() {
    if !is_root() {
        eprintln!("skipped: making a device node needs root (CI runs as root)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let null = dir.path().join("null");
    char_device(&null, 3);
    let output = run_with_json(&null);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(std::fs::symlink_metadata(&null).unwrap().file_type().is_char_device(), "the node was replaced");
    // A full device refuses the bytes: an error naming the flag, and the node is still a node.
    let full = dir.path().join("full");
    char_device(&full, 7);
    let output = run_with_json(&full);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--json") && stderr.contains(&*full.to_string_lossy()), "{stderr}");
    assert!(std::fs::symlink_metadata(&full).unwrap().file_type().is_char_device(), "the node was replaced");
}

#[test]
fn a_device_in_a_folder_nobody_may_write_takes_a_report_from_nobody() {
    if !is_root() {
        // Not root, the system's /dev/null is safe to use: nobody but root can replace it.
        let output = run_with_json(Path::new("/dev/null"));
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        return;
    }
    // As root a broken writer would replace the system's /dev/null, so a node of its own, in a
    // folder only root may write (as /dev is), written to as nobody: the check must not ask for a
    // new file in the folder.
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let null = dir.path().join("null");
    char_device(&null, 3);
    let (bin, model) = copied_for_nobody(dir.path());
    let mut cmd = std::process::Command::new(&bin);
    cmd.arg(&model)
        .args(["--generate", "ones", "--iterations", "1", "-q", "--json"])
        .arg(&null)
        .env("HOME", "/tmp")
        .uid(65534)
        .gid(65534);
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "as nobody: {}", String::from_utf8_lossy(&output.stderr));
    assert!(std::fs::symlink_metadata(&null).unwrap().file_type().is_char_device(), "the node was replaced");
}

#[test]
fn a_report_through_a_link_lands_in_its_target_and_the_link_stays() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("real.json");
    std::fs::write(&target, "{}").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let output = run_with_json(&link);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&target).unwrap()).unwrap();
    assert!(report["iterations"].is_object(), "{report}");
}

#[test]
fn a_read_only_home_brings_no_telemetry_warning() {
    if !is_root() {
        eprintln!("skipped: running as another user needs root (CI runs as root)");
        return;
    }
    // As nobody with a HOME it cannot write, ONNX Runtime warns that its telemetry device ID
    // cannot be saved, on every run: dmlrun keeps that from the user.
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let (bin, model) = copied_for_nobody(dir.path());
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o555)).unwrap();
    let output = std::process::Command::new(&bin)
        .arg(&model)
        .args(["--generate", "ones", "--iterations", "1", "-q"])
        .env("HOME", &home)
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("telemetry"), "{stderr}");
}
