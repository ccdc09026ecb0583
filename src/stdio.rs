//! Writing to stdout and stderr without panicking when the other end is gone.
//!
//! `print!` panics when stdout is a closed pipe (`dmlrun info model.onnx | head -1`). Here a
//! closed stdout ends the process quietly with status 0, as ripgrep does: the reader has all it
//! wanted. Other stdout failures (a full disk) are one-line errors, exit 2. A closed stderr is
//! ignored: there is nowhere left to say anything.

use std::fmt;
use std::io::Write;

/// `print!` that survives a closed stdout.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::stdio::write_stdout(format_args!($($arg)*)) };
}

/// `println!` that survives a closed stdout.
#[macro_export]
macro_rules! outln {
    () => { $crate::stdio::write_stdout(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::stdio::write_stdout(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `eprint!` that survives a closed stderr.
#[macro_export]
macro_rules! err {
    ($($arg:tt)*) => { $crate::stdio::write_stderr(format_args!($($arg)*)) };
}

/// `eprintln!` that survives a closed stderr.
#[macro_export]
macro_rules! errln {
    () => { $crate::stdio::write_stderr(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::stdio::write_stderr(format_args!("{}\n", format_args!($($arg)*))) };
}

pub fn write_stdout(args: fmt::Arguments) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe || is_closed_pipe_on_windows(&e) {
            std::process::exit(0);
        }
        write_stderr(format_args!("dmlrun: error: writing to stdout: {e}\n"));
        std::process::exit(crate::exit::ExitStatus::Error.code().into());
    }
}

pub fn write_stderr(args: fmt::Arguments) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// Windows reports a pipe whose reader has gone as ERROR_NO_DATA (232), not as a broken pipe.
fn is_closed_pipe_on_windows(e: &std::io::Error) -> bool {
    cfg!(windows) && e.raw_os_error() == Some(232)
}
