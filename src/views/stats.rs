//! The rows of many sessions grouped into report lines (`stats --by day|week|month|model|
//! project|session|tool`). Each row goes to the bucket of its own time and its own model, so a
//! session that ran past midnight is split across days; the buckets of one grouping add up to
//! the sum of pi's `/session` totals of the sessions read.

use jiff::tz::TimeZone;
use jiff::Timestamp;

use pisess_format::model::Usage;
use pisess_store::prices::Estimated;
use pisess_store::summary::{Counts, Summary};
use pisess_store::tally::{Row, Tally};

use crate::views::prices::{self, Estimate, Pricer};

/// What rows are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum By {
    Day,
    /// ISO weeks (`2026-W05`), Monday first.
    Week,
    Month,
    /// `provider/model`.
    Model,
    /// The session's cwd.
    Project,
    Session,
    /// Tool name: calls, results and errors.
    Tool,
    /// One row per message-bearing entry (the fact table; `--json` only).
    Message,
}

impl By {
    pub fn as_str(self) -> &'static str {
        match self {
            By::Day => "day",
            By::Week => "week",
            By::Month => "month",
            By::Model => "model",
            By::Project => "project",
            By::Session => "session",
            By::Tool => "tool",
            By::Message => "message",
        }
    }
}

/// `--sort`: what a report's rows are ordered by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SortBy {
    /// The key: dates oldest first, names in byte order
    #[value(alias = "date")]
    Key,
    /// Cost, highest first
    Cost,
    /// Tokens, most first
    Tokens,
    /// Messages, most first
    Messages,
    /// Sessions, most first
    Sessions,
    /// Tool calls, most first
    Calls,
}

/// One report line.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Bucket {
    /// The row's key; with two keys (`--by day,model`), both, as [`Bucket::keys`] holds them.
    pub key: String,
    /// Each key's value, in the order of `--by` (one with one key).
    pub keys: Vec<String>,
    /// `--by session`: the session's name, else its first user message.
    pub title: String,
    /// `--by session`: the file counted and its copies, not counted (`cmd/stats/copies.rs`);
    /// empty for a session in one file.
    pub files: Vec<String>,
    /// Sessions with a row in this bucket.
    pub sessions: u64,
    /// `message` entries (pi's `totalMessages`).
    pub messages: u64,
    pub counts: Counts,
    pub usage: Usage,
    /// With `--prices`: the estimate of the usage pi recorded at cost 0, apart from `usage.cost`.
    pub estimated: Estimated,
}

impl Bucket {
    fn add_row(&mut self, r: &Row, e: Option<&Estimate>) {
        if let Some(e) = e {
            prices::add(&mut self.estimated, e);
        }
        self.messages += u64::from(r.message);
        match r.role.as_str() {
            "user" if r.message => self.counts.user_messages += 1,
            "assistant" if r.message => {
                self.counts.assistant_messages += 1;
                self.counts.tool_calls += r.calls.len() as u64;
            }
            // A toolResult message, or a seed-000 `tool_result` block (no message of its own).
            "toolResult" => {
                self.counts.tool_results += 1;
                self.counts.tool_errors += u64::from(r.is_error == Some(true));
            }
            _ => {}
        }
        if let Some(u) = &r.usage {
            self.usage.add(u);
        }
    }

    fn add(&mut self, other: &Bucket) {
        self.sessions += other.sessions;
        self.messages += other.messages;
        let (c, o) = (&mut self.counts, &other.counts);
        c.user_messages += o.user_messages;
        c.assistant_messages += o.assistant_messages;
        c.tool_calls += o.tool_calls;
        c.tool_results += o.tool_results;
        c.tool_errors += o.tool_errors;
        self.usage.add(&other.usage);
        self.estimated.merge(&other.estimated);
    }
}

/// The time window on each row's own time: `[since, until)`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RowWindow {
    pub since: Option<i64>,
    pub until: Option<i64>,
}

impl RowWindow {
    /// Whether a report over this window counts something of `s` (its warnings are said only
    /// then: a damaged session 60 days old is no concern of `--since 1d`).
    pub fn counts(&self, s: &Summary) -> bool {
        let unbounded = self.since.is_none() && self.until.is_none();
        unbounded
            || s.tally
                .as_deref()
                .is_some_and(|t| t.rows.iter().any(|r| self.holds(r)))
    }

    pub fn holds(&self, r: &Row) -> bool {
        let unbounded = self.since.is_none() && self.until.is_none();
        unbounded
            || r.ts_ms.is_some_and(|t| {
                self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t < u)
            })
    }
}

/// The number of `t`'s local day in `tz` (days since 1970-01-01 there), one to one with its
/// date; `None` near the ends of the time line, where a date may be clamped.
fn local_day(t: Timestamp, tz: &TimeZone) -> Option<i64> {
    let ms = t.as_millisecond();
    (ms.unsigned_abs() < 200_000_000_000_000)
        .then(|| (ms + i64::from(tz.to_offset(t).seconds()) * 1000).div_euclid(86_400_000))
}

/// The calendar key of a date.
fn date_key(date: jiff::civil::Date, by: By) -> String {
    match by {
        By::Week => {
            let w = date.iso_week_date();
            format!("{:04}-W{:02}", w.year(), w.week())
        }
        By::Month => format!("{:04}-{:02}", date.year(), date.month()),
        _ => date.to_string(),
    }
}

/// What rows are grouped by, in which zone and window: all a session's [`Share`] needs, so it
/// can be made on the thread that read the session ([`Grouper::rules`]).
#[derive(Clone, Copy)]
pub struct Rules<'a> {
    by: By,
    /// A second key (`--by day,model`): each row under both.
    then: Option<By>,
    tz: &'a TimeZone,
    window: RowWindow,
    pricer: Option<&'a Pricer>,
}

/// One session's part of a report: its buckets (each with `sessions` 1) and their sum. Made
/// apart from the [`Grouper`], so the rows can be grouped, and the session freed, by the thread
/// that decoded it; adding the shares in file order gives the sums a fold in file order gives.
pub struct Share {
    parts: Vec<(String, Bucket)>,
    whole: Bucket,
    /// `--by session`: the session's title.
    title: Option<String>,
}

impl Share {
    /// The `message` entries it counts (which of two copies of a session says more).
    pub fn messages(&self) -> u64 {
        self.whole.messages
    }
}

impl Rules<'_> {
    /// The share of one session (none unless it was read with a tally).
    pub fn share(&self, s: &Summary) -> Share {
        let (by, tz, window) = (self.by, self.tz, self.window);
        let mut share = Share {
            parts: Vec::new(),
            whole: Bucket::default(),
            title: None,
        };
        let Some(t) = s.tally.as_deref() else {
            return share;
        };
        if let Some(then) = self.then {
            return self.share_of_two(s, t, then, share);
        }
        let matches = self.pricer.map(|p| p.models(t));
        // The local day (`local_day`) last keyed and its key: the rows of a session come a day
        // at a time, and formatting a key for each was a sixth of a report from the cache,
        // making a date for each a fifteenth.
        let mut last: Option<(Option<i64>, String)> = None;
        // This session's share of each bucket, so a session is counted once per bucket.
        let mut mine = Parts::default();
        for r in t.rows.iter().filter(|r| window.holds(r)) {
            let e = matches.as_deref().and_then(|m| prices::estimate(m, r));
            let e = e.as_ref();
            match by {
                By::Tool => {
                    for name in &r.calls {
                        let b = mine.get(name.as_str());
                        b.counts.tool_calls += 1;
                    }
                    if r.role == "toolResult" {
                        let b = mine.get(r.tool.as_deref().unwrap_or(""));
                        b.counts.tool_results += 1;
                        b.counts.tool_errors += u64::from(r.is_error == Some(true));
                        if let Some(u) = &r.usage {
                            b.usage.add(u);
                        }
                        if let Some(e) = e {
                            prices::add(&mut b.estimated, e);
                        }
                    }
                }
                // A tool result is counted under the model whose call it answers; its usage
                // (rare) stays under pi's key for it.
                By::Model if r.answers.is_some() && r.answers != r.model => {
                    let name = |m| t.model_name(m).unwrap_or_else(|| "(no model)".into());
                    let counts = Row {
                        usage: None,
                        ..r.clone()
                    };
                    mine.get(&name(r.answers)).add_row(&counts, None);
                    let b = mine.get(&name(r.model));
                    if let Some(u) = &r.usage {
                        b.usage.add(u);
                    }
                    if let Some(e) = e {
                        prices::add(&mut b.estimated, e);
                    }
                }
                By::Day | By::Week | By::Month => {
                    let time = r.ts_ms.and_then(|ms| Timestamp::from_millisecond(ms).ok());
                    let key = match time {
                        Some(t) => {
                            let day = local_day(t, tz);
                            match &last {
                                Some((d, key)) if day.is_some() && *d == day => key.as_str(),
                                _ => {
                                    let date = tz.to_datetime(t).date();
                                    &last.insert((day, date_key(date, by))).1
                                }
                            }
                        }
                        None => "(no time)",
                    };
                    mine.get(key).add_row(r, e);
                }
                _ => {
                    // Borrowed: a key is made only for a bucket this session has not met yet.
                    let key = match by {
                        By::Model => r
                            .model
                            .and_then(|i| t.models.get(i as usize))
                            .map_or("(no model)", |m| m.key.as_str()),
                        By::Project => s.cwd.as_str(),
                        _ => s.id.as_str(),
                    };
                    mine.get(key).add_row(r, e);
                }
            }
        }
        share.parts = mine
            .list
            .into_iter()
            .map(|(key, mut b)| {
                b.sessions = 1;
                share.whole.add(&b);
                (key, b)
            })
            .collect();
        if by == By::Session && !share.parts.is_empty() {
            share.title = Some(
                s.name
                    .clone()
                    .unwrap_or_else(|| s.first_message.to_string()),
            );
        }
        share
    }
}

/// One session's buckets by key, in the order first met. A session has a few (its days, its
/// models, one project): a list, searched from the bucket last found, not a hash map made and
/// hashed into for each session (two fifths of a share's instructions, on a store of small
/// sessions). Past [`Parts::LISTED`] keys (a session of many tools or days) a map finds them.
#[derive(Default)]
struct Parts {
    list: Vec<(String, Bucket)>,
    last: usize,
    index: Option<hashbrown::HashMap<String, usize>>,
}

impl Parts {
    const LISTED: usize = 16;

    /// The bucket of `key`, new if it has none yet.
    fn get(&mut self, key: &str) -> &mut Bucket {
        let i = match self.list.get(self.last) {
            Some((k, _)) if k == key => self.last,
            _ => {
                let found = match &self.index {
                    Some(index) => index.get(key).copied(),
                    None => self.list.iter().position(|(k, _)| k == key),
                };
                found.unwrap_or_else(|| self.push(key))
            }
        };
        self.last = i;
        &mut self.list[i].1
    }

    fn push(&mut self, key: &str) -> usize {
        let i = self.list.len();
        self.list.push((key.to_owned(), Bucket::default()));
        match &mut self.index {
            Some(index) => {
                index.insert(key.to_owned(), i);
            }
            None if self.list.len() > Self::LISTED => {
                let keys = self.list.iter().enumerate();
                self.index = Some(keys.map(|(i, (k, _))| (k.clone(), i)).collect());
            }
            None => {}
        }
        i
    }
}

impl Rules<'_> {
    /// One key's value for a row, the model's given apart (a tool result's counts go under
    /// the model it answers, its usage under its own, as with one key).
    fn part(&self, by: By, s: &Summary, r: &Row, model: String) -> String {
        match by {
            By::Day | By::Week | By::Month => r
                .ts_ms
                .and_then(|ms| Timestamp::from_millisecond(ms).ok())
                .map_or_else(
                    || "(no time)".to_owned(),
                    |t| date_key(self.tz.to_datetime(t).date(), by),
                ),
            By::Model => model,
            By::Project => s.cwd.clone(),
            _ => s.id.clone(),
        }
    }

    /// [`Rules::share`] with two keys: each row's bucket is the pair. The keys are made a row
    /// at a time (a two-key report is not the hot path the one-key loop is tuned for).
    fn share_of_two(&self, s: &Summary, t: &Tally, then: By, mut share: Share) -> Share {
        let matches = self.pricer.map(|p| p.models(t));
        let name = |m| t.model_name(m).unwrap_or_else(|| "(no model)".into());
        let mut mine: hashbrown::HashMap<String, Bucket> = hashbrown::HashMap::new();
        fn bucket(mine: &mut hashbrown::HashMap<String, Bucket>, keys: [String; 2]) -> &mut Bucket {
            // Each part's length first, so no text in a part (a cwd is anything) can make two
            // pairs one key.
            let id: String = keys.iter().map(|k| format!("{}:{k}", k.len())).collect();
            mine.entry(id).or_insert_with(|| Bucket {
                keys: keys.to_vec(),
                ..Bucket::default()
            })
        }
        let pair =
            |model: String, r: &Row| [self.by, then].map(|by| self.part(by, s, r, model.clone()));
        let models = self.by == By::Model || then == By::Model;
        for r in t.rows.iter().filter(|r| self.window.holds(r)) {
            let e = matches.as_deref().and_then(|m| prices::estimate(m, r));
            let e = e.as_ref();
            if models && r.answers.is_some() && r.answers != r.model {
                let counts = Row {
                    usage: None,
                    ..r.clone()
                };
                bucket(&mut mine, pair(name(r.answers), r)).add_row(&counts, None);
                let b = bucket(&mut mine, pair(name(r.model), r));
                if let Some(u) = &r.usage {
                    b.usage.add(u);
                }
                if let Some(e) = e {
                    prices::add(&mut b.estimated, e);
                }
            } else {
                bucket(&mut mine, pair(name(r.model), r)).add_row(r, e);
            }
        }
        share.parts = mine
            .into_iter()
            .map(|(id, mut b)| {
                b.sessions = 1;
                share.whole.add(&b);
                (id, b)
            })
            .collect();
        if (self.by == By::Session || then == By::Session) && !share.parts.is_empty() {
            share.title = Some(
                s.name
                    .clone()
                    .unwrap_or_else(|| s.first_message.to_string()),
            );
        }
        share
    }
}

/// The rows of sessions (each read with a [`Tally`](pisess_store::tally::Tally)) grouped into
/// buckets, one session's [`Share`] at a time, so a report need not hold every session's rows.
pub struct Grouper<'a> {
    rules: Rules<'a>,
    buckets: hashbrown::HashMap<String, Bucket>,
    total: Bucket,
}

impl<'a> Grouper<'a> {
    pub fn new(
        by: By,
        tz: &'a TimeZone,
        window: RowWindow,
        pricer: Option<&'a Pricer>,
    ) -> Grouper<'a> {
        Grouper {
            rules: Rules {
                by,
                then: None,
                tz,
                window,
                pricer,
            },
            buckets: hashbrown::HashMap::new(),
            total: Bucket::default(),
        }
    }

    /// A second key: each row under the pair (`--by day,model`).
    #[must_use]
    pub fn then(mut self, then: Option<By>) -> Self {
        self.rules.then = then;
        self
    }

    /// `--by session`: the files of a session counted once though it is in several, the one
    /// counted first.
    pub fn name_files(&mut self, id: &str, files: Vec<String>) {
        if let Some(b) = self.buckets.get_mut(id) {
            b.files = files;
        }
    }

    /// How this grouper makes a session's share.
    pub fn rules(&self) -> Rules<'a> {
        self.rules
    }

    /// Adds one session's share; shares must come in the order the sessions are to be summed.
    pub fn merge(&mut self, share: Share) {
        let Share {
            parts,
            whole,
            title,
        } = share;
        for (key, b) in parts {
            let bucket = self.buckets.entry(key).or_default();
            if bucket.keys.is_empty() {
                bucket.keys.clone_from(&b.keys);
            }
            if let Some(title) = &title {
                if bucket.title.is_empty() {
                    bucket.title.clone_from(title);
                }
            }
            bucket.add(&b);
        }
        if whole.sessions > 0 {
            let mut whole = whole;
            whole.sessions = 1;
            self.total.add(&whole);
        }
    }

    /// The buckets in report order (`sort`, else the key's own order: time keys oldest
    /// first, tools by calls, the others by cost), and their total. With two keys the rows are
    /// grouped under the first key in its order, and ordered within a group by the second's;
    /// `sort` orders all rows as one list.
    pub fn finish(self, sort: Option<SortBy>) -> (Vec<Bucket>, Bucket) {
        let (rules, buckets, mut total) = (self.rules, self.buckets, self.total);
        let mut rows: Vec<Bucket> = buckets
            .into_iter()
            .map(|(key, mut b)| {
                if b.keys.is_empty() {
                    b.keys = vec![key];
                }
                b.key = b.keys.join(" ");
                b
            })
            .collect();
        let order = |by: By, i: usize| {
            let own = match by {
                By::Day | By::Week | By::Month => SortBy::Key,
                By::Tool => SortBy::Calls,
                _ => SortBy::Cost,
            };
            Order(sort.unwrap_or(own), i)
        };
        match rules.then {
            Some(then) if sort.is_none() => {
                // A group's place is its first key's order over the group's sum.
                let mut groups: hashbrown::HashMap<String, Bucket> = hashbrown::HashMap::new();
                for b in &rows {
                    let g = groups.entry_ref(b.keys[0].as_str()).or_default();
                    g.keys = vec![b.keys[0].clone()];
                    g.add(b);
                }
                let mut firsts: Vec<Bucket> = groups.into_values().collect();
                let first = order(rules.by, 0);
                firsts.sort_by(|a, b| first.cmp(a, b));
                let rank: hashbrown::HashMap<String, usize> = (firsts.into_iter().enumerate())
                    .map(|(i, mut g)| (std::mem::take(&mut g.keys[0]), i))
                    .collect();
                let second = order(then, 1);
                rows.sort_by(|a, b| {
                    rank[&a.keys[0]]
                        .cmp(&rank[&b.keys[0]])
                        .then_with(|| second.cmp(a, b))
                });
            }
            _ => {
                let o = order(rules.by, 0);
                rows.sort_by(|a, b| o.cmp(a, b));
            }
        }
        total.key = "total".to_owned();
        (rows, total)
    }
}

/// An order of rows: what is compared, and which key breaks ties (and is the order itself
/// for [`SortBy::Key`]).
#[derive(Clone, Copy)]
struct Order(SortBy, usize);

impl Order {
    /// Figures highest first, ties by key.
    fn cmp(self, a: &Bucket, b: &Bucket) -> std::cmp::Ordering {
        // In the key's order, `(no time)` (or `(no model)`) after the names; among equal
        // figures, keys as they sort.
        fn key(x: &Bucket, i: usize, by: SortBy) -> (bool, &str) {
            let k = x.keys.get(i).map_or(x.key.as_str(), String::as_str);
            (by == SortBy::Key && k.starts_with('('), k)
        }
        let Order(by, i) = self;
        let tokens = |x: &Bucket| x.usage.total_tokens();
        let figure = match by {
            SortBy::Key => std::cmp::Ordering::Equal,
            SortBy::Cost => b.usage.cost.total_cmp(&a.usage.cost),
            SortBy::Tokens => tokens(b).total_cmp(&tokens(a)),
            SortBy::Messages => b.messages.cmp(&a.messages),
            SortBy::Sessions => b.sessions.cmp(&a.sessions),
            SortBy::Calls => b.counts.tool_calls.cmp(&a.counts.tool_calls),
        };
        figure
            .then_with(|| key(a, i, by).cmp(&key(b, i, by)))
            .then_with(|| a.keys.cmp(&b.keys))
    }
}

/// One session's report.
pub struct One {
    pub summary: Summary,
    /// The messages `context` would send next and pi's estimate of their tokens.
    pub next_messages: usize,
    pub next_tokens: usize,
    /// pi's `getSessionStats` `tokens` and `cost` where JavaScript's `+` made a total a string
    /// (a count stored as `"5"`): what `stats --json` gives instead of the numeric totals.
    pub pi_totals: Option<(serde_json::Value, serde_json::Value)>,
    /// With subagent runs: the family's, each token once.
    pub family: Option<FamilyTotals>,
}

/// A session and its subagent runs together, and with `--forks` its forks and theirs
/// (`cmd/stats/family.rs`).
pub struct FamilyTotals {
    /// The session, its runs and forks.
    pub sessions: usize,
    pub subagent_runs: usize,
    pub forks: usize,
    pub usage: pisess_format::model::Usage,
}

impl One {
    pub fn tally(&self) -> &Tally {
        self.summary
            .tally
            .as_deref()
            .expect("read with Detail::Stats")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts find each key's bucket, listed or through the map past
    /// [`Parts::LISTED`] keys, and keep the order keys were first met.
    #[test]
    fn parts_find_each_keys_bucket_listed_or_mapped() {
        let mut parts = Parts::default();
        let keys: Vec<String> = (0..40).map(|i| format!("k{}", i % 23)).collect();
        for (n, key) in keys.iter().enumerate() {
            parts.get(key).messages += 1;
            parts.get(key).sessions += n as u64;
            // Found again, not made twice: at the last one and at an earlier one.
            parts.get(&keys[n / 2]).counts.tool_calls += 1;
        }
        assert!(parts.index.is_some());
        let listed: Vec<&str> = parts.list.iter().map(|(k, _)| k.as_str()).collect();
        let order: Vec<String> = (0..23).map(|i| format!("k{i}")).collect();
        assert_eq!(listed, order);
        for (k, b) in &parts.list {
            let at: Vec<usize> = (0..40).filter(|&n| keys[n] == *k).collect();
            assert_eq!(b.messages, at.len() as u64, "{k}");
            assert_eq!(b.sessions, at.iter().sum::<usize>() as u64, "{k}");
            let asked = (0..40).filter(|&n| keys[n / 2] == *k).count();
            assert_eq!(b.counts.tool_calls, asked as u64, "{k}");
        }
    }

    #[test]
    fn a_local_day_is_the_date_a_time_has_in_the_zone() {
        let zones = [
            "UTC",
            "Europe/Berlin",
            "America/Santiago",
            "Pacific/Kiritimati",
            "Asia/Kolkata",
        ];
        for zone in zones {
            let tz = TimeZone::get(zone).unwrap();
            // Every 17 minutes and some milliseconds over 2025, and times before 1970.
            let times = (0..31_000i64)
                .map(|i| 1_735_689_600_000 + i * 1_020_123)
                .chain((0..2_000).map(|i| -86_400_000 * 400 + i * 1_234_567));
            for ms in times {
                let t = Timestamp::from_millisecond(ms).unwrap();
                let date = tz.to_datetime(t).date();
                let days = date
                    .to_zoned(TimeZone::UTC)
                    .unwrap()
                    .timestamp()
                    .as_second()
                    .div_euclid(86_400);
                assert_eq!(local_day(t, &tz), Some(days), "{zone} {ms}");
            }
        }
    }
}
