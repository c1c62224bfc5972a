//! `nspd agents add|list|show|revoke`: the person's say over which agents exist and
//! what each may touch. The command changes `<data dir>/agents.json` under its lock; a
//! running nspd sees the change within a second (docs/safety.md, "Several agents").

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, Subcommand, ValueEnum};
use nsp_daemon::core::agents::{AgentAsk, AgentRecord, Agents, OriginPattern, Scope, TabsScope};
use nsp_daemon::core::auth::AgentKey;
use nsp_daemon::core::config::default_data_dir;
use nsp_protocol::Reversibility;

#[derive(Debug, Args)]
pub struct AgentsArgs {
    /// The data dir nspd runs with [default: $NSP_DATA_DIR, else $XDG_DATA_HOME/nspd, else ~/.local/share/nspd].
    #[arg(long, value_name = "DIR", global = true)]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: AgentsCommand,
}

#[derive(Debug, Subcommand)]
enum AgentsCommand {
    /// Create an agent with its own key (a 0600 file in the data dir, whose path is
    /// printed; the key itself never is). Without options it may do what the default
    /// agent may: name what it may touch.
    Add {
        /// Its name (1-32 of a-z, 0-9, - and _); its tab group is named after it.
        name: String,
        /// An origin it may see and act on, e.g. https://mail.example.com or
        /// https://*.example.com (that domain and its subdomains); repeat for more
        /// [default: every origin].
        #[arg(long = "origins", value_name = "PATTERN", num_args = 1..)]
        origins: Vec<String>,
        /// The highest tier it may run; a person's approval cannot lift it.
        #[arg(long, value_enum, default_value_t = Tier::IrreversibleWrite)]
        max_tier: Tier,
        /// Which tabs exist for it: the ones it opened, also those the person shares with it from the popup, or every tab in its origins.
        #[arg(long, value_enum, default_value_t = Tabs::All)]
        tabs: Tabs,
        /// When its actions go to the person: below the confidence floor (as the daemon), before every write, or never (refused instead). Never looser than the daemon's own setting.
        #[arg(long, value_enum, default_value_t = Ask::BelowFloor)]
        ask: Ask,
        /// Its own ceiling on actions per minute, besides the daemon's per-key limit.
        #[arg(long, value_name = "N")]
        actions_per_minute: Option<u32>,
    },
    /// One line per agent: name, scope, created (--json: the records as JSON).
    List {
        #[arg(long)]
        json: bool,
    },
    /// One agent's scope and key file.
    Show { name: String },
    /// Revoke an agent: its key stops working within a second, its leases end, and a
    /// request of its that is still waiting is refused before it reaches the page.
    Revoke { name: String },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
#[value(rename_all = "snake_case")]
enum Tier {
    Read,
    ReversibleWrite,
    IrreversibleWrite,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
#[value(rename_all = "snake_case")]
enum Tabs {
    Own,
    Shared,
    All,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
#[value(rename_all = "snake_case")]
enum Ask {
    BelowFloor,
    Always,
    Never,
}

pub fn run(args: AgentsArgs) -> anyhow::Result<()> {
    let dir = args.data_dir.unwrap_or_else(default_data_dir);
    let key = AgentKey::load_or_create(&dir)?;
    let agents = Agents::open(&dir, &key)?;
    match args.command {
        AgentsCommand::Add {
            name,
            origins,
            max_tier,
            tabs,
            ask,
            actions_per_minute,
        } => {
            let origins = origins
                .iter()
                .map(|o| o.parse::<OriginPattern>().map_err(anyhow::Error::msg))
                .collect::<anyhow::Result<Vec<_>>>()?;
            let scope = Scope {
                origins,
                max_tier: match max_tier {
                    Tier::Read => Reversibility::Read,
                    Tier::ReversibleWrite => Reversibility::ReversibleWrite,
                    Tier::IrreversibleWrite => Reversibility::IrreversibleWrite,
                },
                tabs: match tabs {
                    Tabs::Own => TabsScope::Own,
                    Tabs::Shared => TabsScope::Shared,
                    Tabs::All => TabsScope::All,
                },
                ask: match ask {
                    Ask::BelowFloor => AgentAsk::BelowFloor,
                    Ask::Always => AgentAsk::Always,
                    Ask::Never => AgentAsk::Never,
                },
                actions_per_minute,
            };
            let path = agents.add(&name, scope)?;
            println!("{}", path.display());
            eprintln!(
                "Agent {name:?} added; its key is in the file above (mode 0600). Give that file to the agent, or run `nspd mcp-config CLIENT --agent {name}`."
            );
        }
        AgentsCommand::List { json } => {
            let list = agents.list();
            if json {
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else if list.is_empty() {
                println!("No agents besides the default one (agent.key). `nspd agents add NAME` makes one.");
            } else {
                for r in &list {
                    println!("{}\t{}\t{}", r.name, describe(r), r.created_at);
                }
            }
        }
        AgentsCommand::Show { name } => {
            let r = agents
                .list()
                .into_iter()
                .find(|r| r.name == name)
                .with_context(|| {
                    format!("there is no agent {name:?}; `nspd agents list` shows them")
                })?;
            println!("name: {}", r.name);
            println!("scope: {}", describe(&r));
            println!("created: {}", r.created_at);
            println!(
                "key file: {}",
                dir.join(nsp_daemon::core::agents::KEYS_DIR)
                    .join(format!("{name}.key"))
                    .display()
            );
        }
        AgentsCommand::Revoke { name } => {
            if !agents.revoke(&name)? {
                anyhow::bail!("there is no agent {name:?}; `nspd agents list` shows them");
            }
            println!("Agent {name:?} revoked; a running nspd refuses its key within a second.");
        }
    }
    Ok(())
}

fn describe(r: &AgentRecord) -> String {
    let s = &r.scope;
    let origins = if s.origins.is_empty() {
        "*".to_owned()
    } else {
        s.origins
            .iter()
            .map(|o| o.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let tabs = match s.tabs {
        TabsScope::Own => "own",
        TabsScope::Shared => "shared",
        TabsScope::All => "all",
    };
    let ask = match s.ask {
        AgentAsk::BelowFloor => "below_floor",
        AgentAsk::Always => "always",
        AgentAsk::Never => "never",
    };
    let mut out = format!(
        "origins={origins} max-tier={} tabs={tabs} ask={ask}",
        s.max_tier.as_str()
    );
    if let Some(n) = s.actions_per_minute {
        out.push_str(&format!(" actions-per-minute={n}"));
    }
    out
}
