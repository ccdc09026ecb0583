//! One function per subcommand. Each returns the process exit code or an error.

pub mod bench;
pub mod devices;
pub mod docs;
pub mod doctor;
pub mod fix;
pub mod generate;
pub mod info;
pub mod merge;
pub mod reduce;
pub mod run;
pub mod test;
pub mod tune;
