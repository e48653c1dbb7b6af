//! Time as pi computes it: JavaScript's `Date` parsing of ISO strings, `Date.toJSON` output,
//! and the spans (`2h`, `3d`) and relative times (`3h ago`) of the command line.

use jiff::tz::TimeZone;
use jiff::{Timestamp, Zoned};

/// The farthest a JavaScript `Date` reaches from the epoch, either way (ECMA-262 21.4.1.1).
const MAX_MS: i64 = 8_640_000_000_000_000;

/// Milliseconds since the epoch, as `Date.parse(s)` (V8's) gives them; `None` where JavaScript
/// gives `NaN`. Read exactly as V8 reads them:
///
/// - ECMAScript's date-time string format: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, each optionally
///   followed by `THH:mm`, `THH:mm:ss` or `THH:mm:ss.f…` (one or more digits, cut to
///   milliseconds) and `Z` or `±HH:mm`; expanded years `±YYYYYY` (not `-000000`); `t` and `z`
///   in either case. A form without a time is UTC; a time without an offset is local time.
/// - Fields as V8 checks them: month 1–12, day 1–31 in any month (`2021-02-30` rolls over to
///   March 2), hour 0–24 (24 only as `24:00:00.000`, the next midnight), minute and second
///   0–59, offsets up to `23:59`.
/// - Two legacy spellings V8 falls back to that turn up in files written by hand or by other
///   tools: a space for the `T` (`2021-02-03 04:05:06Z`) and an offset without its colon
///   (`+0100`), with the same fields.
/// - The result within ±8.64e15 ms (`+275760-09-13T00:00:00.000Z` is the last valid time).
///
/// Other legacy forms (`Thu, 01 Jan 2026 …`, `2026/01/01`) are not read: pi writes none.
pub fn parse_js_date(s: &str) -> Option<i64> {
    if let Some(ms) = parse_canonical(s.as_bytes()) {
        return Some(ms);
    }
    parse_js_date_in(s, &TimeZone::system())
}

/// [`parse_js_date`] with `local` as the local time zone.
fn parse_js_date_in(s: &str, local: &TimeZone) -> Option<i64> {
    let iso = parse_iso(s.as_bytes())?;
    let ms = match iso.offset_ms {
        Some(offset) => iso.civil_ms - offset,
        None if iso.has_time => civil_in(iso.civil_ms, local)?,
        None => iso.civil_ms,
    };
    (ms.abs() <= MAX_MS).then_some(ms)
}

/// A date-time string read by [`parse_iso`]: its fields as milliseconds from 1970-01-01T00:00
/// on the wall clock, and its offset if it has one.
struct Iso {
    civil_ms: i64,
    has_time: bool,
    offset_ms: Option<i64>,
}

fn parse_iso(s: &[u8]) -> Option<Iso> {
    let mut at = 0;
    let digits = |at: &mut usize, n: usize| -> Option<i64> {
        let d = s.get(*at..*at + n)?;
        if !d.iter().all(u8::is_ascii_digit) {
            return None;
        }
        *at += n;
        Some(d.iter().fold(0, |v, &b| v * 10 + i64::from(b - b'0')))
    };
    let year = match s.first()? {
        b'+' | b'-' => {
            at = 1;
            let y = digits(&mut at, 6)?;
            if s[0] == b'-' {
                if y == 0 {
                    return None;
                }
                -y
            } else {
                y
            }
        }
        _ => digits(&mut at, 4)?,
    };
    let (mut month, mut day) = (1, 1);
    if s.get(at) == Some(&b'-') {
        at += 1;
        month = digits(&mut at, 2)?;
        if s.get(at) == Some(&b'-') {
            at += 1;
            day = digits(&mut at, 2)?;
        }
    }
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let (mut hour, mut minute, mut second, mut millis) = (0, 0, 0, 0);
    let mut has_time = false;
    let mut offset_ms = None;
    if matches!(s.get(at), Some(b'T' | b't' | b' ')) {
        at += 1;
        has_time = true;
        hour = digits(&mut at, 2)?;
        (s.get(at) == Some(&b':')).then_some(())?;
        at += 1;
        minute = digits(&mut at, 2)?;
        if s.get(at) == Some(&b':') {
            at += 1;
            second = digits(&mut at, 2)?;
            if s.get(at) == Some(&b'.') {
                at += 1;
                let start = at;
                while s.get(at).is_some_and(u8::is_ascii_digit) {
                    at += 1;
                }
                if at == start {
                    return None;
                }
                // Milliseconds: the first three digits, padded; the rest is cut, as V8 does.
                millis = s[start..at]
                    .iter()
                    .chain(b"00")
                    .take(3)
                    .fold(0, |v, &b| v * 10 + i64::from(b - b'0'));
            }
        }
        match s.get(at) {
            Some(b'Z' | b'z') => {
                at += 1;
                offset_ms = Some(0);
            }
            Some(&sign @ (b'+' | b'-')) => {
                at += 1;
                let h = digits(&mut at, 2)?;
                if s.get(at) == Some(&b':') {
                    at += 1;
                }
                let m = digits(&mut at, 2)?;
                if h > 23 || m > 59 {
                    return None;
                }
                let offset = (h * 60 + m) * 60_000;
                offset_ms = Some(if sign == b'-' { -offset } else { offset });
            }
            _ => {}
        }
        let midnight = hour == 24 && minute == 0 && second == 0 && millis == 0;
        if (hour > 23 && !midnight) || minute > 59 || second > 59 {
            return None;
        }
    }
    if at != s.len() {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let civil_ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis;
    Some(Iso {
        civil_ms,
        has_time,
        offset_ms,
    })
}

/// The instant at which `tz`'s wall clock shows `civil_ms` (ms from 1970-01-01T00:00 on the
/// clock), a time in a gap or a fold read as JavaScript reads it (jiff's "compatible": the
/// later side of a gap, the earlier of a fold). Beyond jiff's years, the offset of its last
/// (or first) instant.
fn civil_in(civil_ms: i64, tz: &TimeZone) -> Option<i64> {
    let (lo, hi) = (
        Timestamp::MIN.as_millisecond() + 86_400_000,
        Timestamp::MAX.as_millisecond() - 86_400_000,
    );
    let clamped = civil_ms.clamp(lo, hi);
    let dt = Timestamp::from_millisecond(clamped)
        .ok()?
        .to_zoned(TimeZone::UTC)
        .datetime();
    let at = dt.to_zoned(tz.clone()).ok()?.timestamp().as_millisecond();
    Some(at + (civil_ms - clamped))
}

/// Days from 1970-01-01 to a date (Howard Hinnant's `days_from_civil`); a day past the month's
/// end runs on into the next month, as JavaScript's `MakeDay` does.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of a day count from 1970-01-01 (Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The form pi writes, `2026-01-01T00:00:20.544Z` (`Date.toJSON`), read without a parser: the
/// index reads one per entry. Anything else, and days past the 28th (months differ), is left to
/// the general path.
fn parse_canonical(s: &[u8]) -> Option<i64> {
    let [y1, y2, y3, y4, b'-', m1, m2, b'-', d1, d2, b'T', h1, h2, b':', i1, i2, b':', s1, s2, b'.', f1, f2, f3, b'Z'] =
        *s
    else {
        return None;
    };
    let number = |digits: &[u8]| {
        digits.iter().try_fold(0i64, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0'))
        })
    };
    let year = number(&[y1, y2, y3, y4])?;
    let (month, day) = (number(&[m1, m2])?, number(&[d1, d2])?);
    let (hour, minute, second) = (number(&[h1, h2])?, number(&[i1, i2])?, number(&[s1, s2])?);
    let millis = number(&[f1, f2, f3])?;
    if !(1..=12).contains(&month)
        || !(1..=28).contains(&day)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis)
}

/// `new Date(ms).toJSON()`: `2025-12-09T00:53:29.825Z`, `+275760-09-13T00:00:00.000Z`; `None`
/// where JavaScript gives `null`.
pub fn to_json_date(ms: i64) -> Option<String> {
    json_date(ms).map(|d| d.as_str().to_owned())
}

/// [`to_json_date`] on the stack: `ls --json` writes two a row, and `format!` was an eighth of
/// a warm listing of 10,000.
pub fn json_date(ms: i64) -> Option<JsonDate> {
    // `unsigned_abs`: `i64::MIN` has no `abs`.
    if ms.unsigned_abs() > MAX_MS.unsigned_abs() {
        return None;
    }
    let (days, ms_of_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    let mut date = JsonDate {
        bytes: [0; 27],
        len: 0,
    };
    if (0..=9999).contains(&year) {
        date.digits(year, 4);
    } else {
        date.push(if year < 0 { b'-' } else { b'+' });
        date.digits(year.abs(), 6);
    }
    for (sep, value, width) in [
        (b'-', month, 2),
        (b'-', day, 2),
        (b'T', ms_of_day / 3_600_000, 2),
        (b':', ms_of_day / 60_000 % 60, 2),
        (b':', ms_of_day / 1000 % 60, 2),
        (b'.', ms_of_day % 1000, 3),
    ] {
        date.push(sep);
        date.digits(value, width);
    }
    date.push(b'Z');
    Some(date)
}

/// A date as `Date.toJSON` writes it (at most `+275760-09-13T00:00:00.000Z`, 27 bytes).
pub struct JsonDate {
    bytes: [u8; 27],
    len: usize,
}

impl JsonDate {
    pub fn as_str(&self) -> &str {
        // Only ASCII is pushed.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }

    fn push(&mut self, b: u8) {
        if let Some(slot) = self.bytes.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    /// `value` (not negative) in at least `width` digits, zeros before.
    fn digits(&mut self, mut value: i64, width: usize) {
        let mut buf = [b'0'; 20];
        let mut at = buf.len();
        while value > 0 || buf.len() - at < width {
            at -= 1;
            buf[at] = b'0' + (value % 10) as u8;
            value /= 10;
        }
        for &b in &buf[at..] {
            self.push(b);
        }
    }
}

/// A `--since`/`--until` value: an ISO date or date-time, `today` or `yesterday` (that day's
/// start), or a span back from `now` (`30s`, `15m`, `2h`, `3d`, `1w`). A date or time without
/// an offset is read in `tz`, the zone the command reports in (`stats --tz Europe/Berlin
/// --since 2026-03-01` is Berlin's midnight, as is `--since today` there).
pub fn parse_when(s: &str, now_ms: i64, tz: &TimeZone) -> Result<i64, BadWhen> {
    if let Some(span) = parse_span(s) {
        return span.map(|span| now_ms - span);
    }
    let days_back = match s.trim() {
        w if w.eq_ignore_ascii_case("today") => Some(0),
        w if w.eq_ignore_ascii_case("yesterday") => Some(1),
        _ => None,
    };
    if let Some(back) = days_back {
        // The day's first instant on `tz`'s clock (jiff's start of day: a day that begins in
        // a gap begins when the clock comes back).
        return Timestamp::from_millisecond(now_ms)
            .ok()
            .and_then(|now| {
                now.to_zoned(tz.clone())
                    .date()
                    .checked_sub(jiff::Span::new().days(back))
                    .ok()
            })
            .and_then(|day| day.to_zoned(tz.clone()).ok())
            .map(|start| start.timestamp().as_millisecond())
            .ok_or_else(|| bad_when(s));
    }
    let iso = parse_iso(s.trim().as_bytes()).ok_or_else(|| bad_when(s))?;
    let ms = match iso.offset_ms {
        Some(offset) => Some(iso.civil_ms - offset),
        None => civil_in(iso.civil_ms, tz),
    };
    ms.filter(|ms| ms.abs() <= MAX_MS)
        .ok_or_else(|| bad_when(s))
}

/// A span (`30s`, `15m`, `2h`, `3d`, `1w`) in ms; `None` when `s` is not of that form (digits
/// and one letter), an error when it is but its unit is unknown or it is too large.
pub fn parse_span(s: &str) -> Option<Result<i64, BadWhen>> {
    let trimmed = s.trim();
    let unit = trimmed.chars().last()?;
    let digits = &trimmed[..trimmed.len() - unit.len_utf8()];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let too_large = || BadWhen::TooLarge(s.to_owned());
    let Ok(n) = digits.parse::<i64>() else {
        return Some(Err(too_large()));
    };
    let unit_ms = match unit {
        's' => 1_000,
        'm' => 60_000,
        'h' => 3_600_000,
        'd' => 86_400_000,
        'w' => 7 * 86_400_000,
        _ => return Some(Err(bad_when(s))),
    };
    Some(n.checked_mul(unit_ms).ok_or_else(too_large))
}

/// A span in words for people: `3m 12s`, `2h 5m`, `4d 3h`, `850ms`.
pub fn span_text(ms: i64) -> String {
    if ms < 0 {
        return format!("-{}", span_text(-ms));
    }
    let s = ms / 1000;
    match s {
        0 => format!("{ms}ms"),
        1..=59 => format!("{s}s"),
        60..=3_599 => format!("{}m {}s", s / 60, s % 60),
        3_600..=86_399 => format!("{}h {}m", s / 3_600, s % 3_600 / 60),
        _ => format!("{}d {}h", s / 86_400, s % 86_400 / 3_600),
    }
}

fn bad_when(s: &str) -> BadWhen {
    BadWhen::Invalid(s.to_owned())
}

/// Why a `--since`/`--until`/`--older-than` value is not a time.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadWhen {
    #[error("invalid time '{0}': use an ISO date (2026-01-31, 2026-01-31T12:00:00Z), today, yesterday or a span (30m, 2h, 3d, 1w)")]
    Invalid(String),
    #[error("'{0}' is too large")]
    TooLarge(String),
}

/// `3h ago`, `just now`, `5d ago`; older than four weeks, the date.
pub fn relative(ms: i64, now_ms: i64) -> String {
    let secs = (now_ms - ms) / 1000;
    if secs < 0 {
        return "in the future".to_owned();
    }
    match secs {
        0..=59 => "just now".to_owned(),
        60..=3_599 => format!("{}m ago", secs / 60),
        3_600..=86_399 => format!("{}h ago", secs / 3_600),
        86_400..=2_419_199 => format!("{}d ago", secs / 86_400),
        _ => Timestamp::from_millisecond(ms)
            .map(|t| t.to_zoned(TimeZone::UTC).date().to_string())
            .unwrap_or_default(),
    }
}

/// Local wall-clock time for human output (`2026-01-31 12:00:03`).
pub fn local_time(ms: i64, tz: &TimeZone) -> String {
    match Timestamp::from_millisecond(ms) {
        Ok(t) => Zoned::new(t, tz.clone())
            .strftime("%Y-%m-%d %H:%M:%S")
            .to_string(),
        Err(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stack-built date is what `format!` made of it before, over the whole range a
    /// `Date` holds and past it (years below 0 and past 9999 written with six digits).
    #[test]
    fn the_stack_date_is_the_formatted_one() {
        fn formatted(ms: i64) -> Option<String> {
            if ms.unsigned_abs() > MAX_MS.unsigned_abs() {
                return None;
            }
            let (days, ms_of_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
            let (year, month, day) = civil_from_days(days);
            let year = if (0..=9999).contains(&year) {
                format!("{year:04}")
            } else {
                format!("{}{:06}", if year < 0 { '-' } else { '+' }, year.abs())
            };
            Some(format!(
                "{year}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
                ms_of_day / 3_600_000,
                ms_of_day / 60_000 % 60,
                ms_of_day / 1000 % 60,
                ms_of_day % 1000
            ))
        }
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut cases = vec![0, -1, 1, MAX_MS, -MAX_MS, MAX_MS + 1, i64::MIN, i64::MAX];
        cases.extend([
            -62_167_219_200_000,
            -62_167_219_200_001,
            253_402_300_799_999,
            253_402_300_800_000,
        ]);
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            cases.push((x as i64) % (MAX_MS + 2));
        }
        for ms in cases {
            assert_eq!(to_json_date(ms), formatted(ms), "{ms}");
        }
    }

    #[test]
    fn canonical_dates_read_as_the_general_parser_reads_them() {
        // A day a month or so, at a different time of day each, over the years of this form.
        let mut ms = -62_135_596_800_000_i64; // 0001-01-01
        let mut checked = 0;
        while ms < 253_402_300_799_000 {
            let text = to_json_date(ms).unwrap();
            let general = text.parse::<Timestamp>().unwrap().as_millisecond();
            assert_eq!(general, ms, "{text}");
            match parse_canonical(text.as_bytes()) {
                Some(fast) => {
                    assert_eq!(fast, general, "{text}");
                    checked += 1;
                }
                None => assert!(text[8..10].parse::<u32>().unwrap() > 28, "{text}"),
            }
            ms += 86_400_000 * 31 + 7919 * 1013;
        }
        assert!(checked > 80_000);
        for odd in [
            "2026-02-30T00:00:00.000Z",
            "2026-13-01T00:00:00.000Z",
            "2026-01-01T24:00:00.000Z",
            "2026-01-01T00:00:00.000+01:00",
            "2026-01-01 00:00:00.000Z",
            "+02026-01-01T00:00:00.000Z",
        ] {
            assert_eq!(parse_canonical(odd.as_bytes()), None, "{odd}");
        }
    }

    /// Timestamps a session may hold, odd ones above all: each is read as V8's `Date.parse`.
    const ODD_TIMESTAMPS: &[&str] = &[
        "2026-01-01T00:00:20.544Z",
        "9999-12-31T00:00:00.000Z",
        "+275760-09-13T00:00:00.000Z",
        "+275760-09-13T00:00:00.001Z",
        "-271821-04-20T00:00:00.000Z",
        "-271821-04-19T23:59:59.999Z",
        "-000001-01-01T00:00:00.000Z",
        "-000000-01-01T00:00:00Z",
        "+002021-02-03T00:00:00Z",
        "002021-02-03T00:00:00Z",
        "2021-02-30T00:00:00.000Z",
        "2021-02-31T00:00:00Z",
        "2021-02-32T00:00:00Z",
        "2021-04-31T00:00:00Z",
        "2020-02-29T00:00:00Z",
        "2021-02-29",
        "2021-13-01T00:00:00Z",
        "2021-00-01T00:00:00Z",
        "2021-01-00T00:00:00Z",
        "2021-12-31T24:00:00Z",
        "2021-01-01T24:00:00.000Z",
        "2021-01-01T24:00:01Z",
        "2021-01-01T24:00:00.001Z",
        "2021-01-01T23:60:00Z",
        "2021-01-01T23:59:60Z",
        "2021",
        "2021-02",
        "2021-02-03",
        "2021-02-03T04:05",
        "2021-02-03T04:05Z",
        "2021-02-03T04:05:06",
        "2021-02-03T04:05:06.5",
        "2021-02-03T04:05:06+01:00",
        "2021-02-03T04:05:06.7Z",
        "2021-02-03T04:05:06.78Z",
        "2021-02-03T04:05:06.789123Z",
        "2021-02-03T04:05:06.789999Z",
        "2021-02-03T04:05:06.Z",
        "2021-02-03t04:05:06z",
        "2021-02-03 04:05:06Z",
        "2021-02-03 04:05:06",
        "2021-02-03T04:05:06+0100",
        "2021-02-03T04:05:06+01",
        "2021-02-03T04:05:06.000+14:00",
        "2021-02-03T04:05:06.000-23:59",
        "2021-02-03T04:05:06.000+24:00",
        "2021-02-03T04:05:06.000+23:60",
        "2021-03-28T02:30:00",
        "2021-10-31T02:30:00",
        "2021-03-14T02:30:00",
        "2021-11-07T01:30:00",
        " 2021-02-03T00:00:00Z",
        "2021-02-03T00:00:00Z ",
        "2021-02-03T04:05:06.000ZZ",
        "2021-02-03T04:05:06,5Z",
        "2021-02-03T4:05:06Z",
        "20210203",
        "+020210-01-01T00:00:00Z",
        "12021-01-01T00:00:00Z",
        "1e3",
        "",
        "x",
    ];

    /// The expectations the issue names, checked without node too.
    #[test]
    fn odd_timestamps_as_new_date_reads_them() {
        let utc = TimeZone::UTC;
        assert_eq!(
            parse_js_date_in("9999-12-31T00:00:00.000Z", &utc),
            Some(253_402_214_400_000)
        );
        assert_eq!(
            parse_js_date_in("+275760-09-13T00:00:00.000Z", &utc),
            Some(MAX_MS)
        );
        assert_eq!(parse_js_date_in("+275760-09-13T00:00:00.001Z", &utc), None);
        // February 30th is March 2nd, as V8 rolls it over.
        assert_eq!(
            parse_js_date_in("2021-02-30T00:00:00.000Z", &utc),
            parse_js_date_in("2021-03-02T00:00:00.000Z", &utc)
        );
        assert_eq!(
            to_json_date(MAX_MS).as_deref(),
            Some("+275760-09-13T00:00:00.000Z")
        );
        assert_eq!(
            to_json_date(-MAX_MS).as_deref(),
            Some("-271821-04-20T00:00:00.000Z")
        );
        assert_eq!(
            to_json_date(-1).as_deref(),
            Some("1969-12-31T23:59:59.999Z")
        );
    }

    /// The table through node's `Date.parse` in three zones (local times differ), and through
    /// `toJSON` back, when node is on the PATH.
    #[test]
    fn odd_timestamps_match_node() {
        let script = "const t = JSON.parse(process.argv[1]); \
            process.stdout.write(JSON.stringify(t.map(s => { const v = Date.parse(s); \
            return Number.isNaN(v) ? null : [v, new Date(v).toJSON()]; })))";
        let table = serde_json::to_string(ODD_TIMESTAMPS).unwrap();
        for zone in ["UTC", "Europe/Berlin", "America/New_York"] {
            let Ok(out) = std::process::Command::new("node")
                .env("TZ", zone)
                .args(["-e", script])
                .arg(&table)
                .output()
            else {
                crate::missing_tool("node (the fixed expectations are checked alone)");
                return;
            };
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let node: Vec<Option<(i64, String)>> = serde_json::from_slice(&out.stdout).unwrap();
            let tz = TimeZone::get(zone).unwrap();
            for (s, node) in ODD_TIMESTAMPS.iter().zip(node) {
                let ours = parse_js_date_in(s, &tz).map(|ms| (ms, to_json_date(ms).unwrap()));
                assert_eq!(ours, node, "{s:?} in {zone}");
            }
        }
    }

    #[test]
    fn parses_what_pi_writes() {
        assert_eq!(
            parse_js_date("2025-12-09T00:53:29.825Z"),
            Some(1_765_241_609_825)
        );
        assert_eq!(parse_js_date("2026-07-31"), Some(1_785_456_000_000));
        assert_eq!(
            parse_js_date("2026-07-31T12:00:00+02:00"),
            Some(1_785_492_000_000)
        );
        assert_eq!(parse_js_date("not a date"), None);
        // JavaScript keeps milliseconds only.
        assert_eq!(
            parse_js_date("2025-12-09T00:53:29.8259Z"),
            Some(1_765_241_609_825)
        );
    }

    #[test]
    fn to_json_matches_javascript() {
        assert_eq!(
            to_json_date(1_765_241_609_825).as_deref(),
            Some("2025-12-09T00:53:29.825Z")
        );
        assert_eq!(to_json_date(0).as_deref(), Some("1970-01-01T00:00:00.000Z"));
        assert_eq!(to_json_date(9_000_000_000_000_000), None);
    }

    #[test]
    fn spans_and_relative() {
        assert_eq!(parse_span("30s"), Some(Ok(30_000)));
        assert_eq!(parse_span("2026-01-01"), None);
        assert!(parse_span("3x").is_some_and(|r| r.is_err()));
        let now = 1_000_000_000_000;
        let utc = TimeZone::UTC;
        assert_eq!(parse_when("2h", now, &utc), Ok(now - 7_200_000));
        assert_eq!(parse_when("1w", now, &utc), Ok(now - 604_800_000));
        assert!(parse_when("2x", now, &utc).is_err());
        assert!(parse_when("soon", now, &utc).is_err());
        // 2001-09-09T01:46:40Z: today began at 00:00 UTC, yesterday a day before; in Berlin
        // (UTC+2 in September) today began at 22:00 UTC the day before.
        let day = 1_000_000_000_000 - (3_600_000 + 46 * 60_000 + 40_000);
        assert_eq!(parse_when("today", now, &utc), Ok(day));
        assert_eq!(parse_when(" Yesterday ", now, &utc), Ok(day - 86_400_000));
        let berlin = TimeZone::get("Europe/Berlin").unwrap();
        assert_eq!(parse_when("today", now, &berlin), Ok(day - 7_200_000));
        assert!(parse_when("tomorrow", now, &utc).is_err());
        assert_eq!(relative(now - 3 * 3_600_000, now), "3h ago");
        assert_eq!(relative(now - 10_000, now), "just now");
        assert_eq!(relative(now - 2 * 86_400_000, now), "2d ago");
        assert_eq!(parse_span("90m"), Some(Ok(5_400_000)));
        assert_eq!(parse_span("2026-01-01"), None);
        assert!(matches!(parse_span("3y"), Some(Err(_))));
        assert!(matches!(parse_span("99999999999999999999s"), Some(Err(_))));
        assert_eq!(span_text(192_000), "3m 12s");
        assert_eq!(span_text(850), "850ms");
        assert_eq!(span_text(7_500_000), "2h 5m");
    }
}
