//! The rewrite rules' flags, made from the rules' own list (`graph::RULES`): a rule names its flag
//! and writes its help in its own file, and every command that opens a session takes it.

use clap::{Arg, ArgAction, ArgMatches, Command, FromArgMatches};

use crate::graph::{Rewrite, RuleId, RULES};

/// The rules switched on, in the list's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleFlags {
    pub chosen: Vec<RuleId>,
}

impl RuleFlags {
    pub fn rewrites(&self) -> impl Iterator<Item = Rewrite> + '_ {
        self.chosen.iter().copied().map(Rewrite::Rule)
    }
}

impl FromArgMatches for RuleFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let on = |id: &RuleId| matches.try_get_one::<bool>(id.rule().flag()).ok().flatten().copied().unwrap_or(false);
        Ok(RuleFlags { chosen: RuleId::all().filter(on).collect() })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = RuleFlags::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for RuleFlags {
    fn augment_args(command: Command) -> Command {
        RULES.iter().fold(command, |command, rule| {
            let help = rule.help();
            let first = help.split("\n\n").next().unwrap_or(help);
            command.arg(
                Arg::new(rule.flag())
                    .long(rule.flag())
                    .action(ArgAction::SetTrue)
                    // Listed with the session options, after --decompose.
                    .help_heading(super::help::SESSION)
                    .help(first.strip_suffix('.').unwrap_or(first).to_string())
                    .long_help(help),
            )
        })
    }

    fn augment_args_for_update(command: Command) -> Command {
        RuleFlags::augment_args(command)
    }
}
