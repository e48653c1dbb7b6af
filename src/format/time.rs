//! Time as pi computes it: JavaScript's `Date` parsing of ISO strings, `Date.toJSON` output,
//! and the spans (`2h`, `3d`) and relative times (`3h ago`) of the command line.

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{Timestamp, Zoned};

/// Milliseconds since the epoch for an ISO date string, as `new Date(s).getTime()` gives it
/// for the forms pi writes; `None` where JavaScript would give `NaN`.
pub(crate) fn parse_js_date(s: &str) -> Option<i64> {
    if let Some(ms) = parse_canonical(s.as_bytes()) {
        return Some(ms);
    }
    let s = s.trim();
    if let Ok(ts) = s.parse::<Timestamp>() {
        return Some(ts.as_millisecond());
    }
    // A date alone is UTC midnight; a date-time without offset is local time (ECMA-262).
    if let Ok(date) = s.parse::<Date>() {
        if s.len() <= 10 {
            return date
                .to_zoned(TimeZone::UTC)
                .ok()
                .map(|z| z.timestamp().as_millisecond());
        }
    }
    if let Ok(dt) = s.parse::<DateTime>() {
        return dt
            .to_zoned(TimeZone::system())
            .ok()
            .map(|z| z.timestamp().as_millisecond());
    }
    None
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
    // Days from 1970-01-01 to the date (Howard Hinnant's `days_from_civil`).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis)
}

/// `new Date(ms).toJSON()`: `2025-12-09T00:53:29.825Z`; `None` where JavaScript gives `null`.
pub(crate) fn to_json_date(ms: i64) -> Option<String> {
    // ECMAScript dates span ±8.64e15 ms around the epoch.
    if ms.abs() > 8_640_000_000_000_000 {
        return None;
    }
    let ts = Timestamp::from_millisecond(ms).ok()?;
    let dt = ts.to_zoned(TimeZone::UTC).datetime();
    let year = i32::from(dt.year());
    let year = if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else {
        format!("{}{:06}", if year < 0 { '-' } else { '+' }, year.abs())
    };
    Some(format!(
        "{year}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second(),
        dt.subsec_nanosecond() / 1_000_000
    ))
}

/// A `--since`/`--until` value: an ISO date or date-time, or a span back from `now`
/// (`30s`, `15m`, `2h`, `3d`, `1w`).
pub(crate) fn parse_when(s: &str, now_ms: i64) -> Result<i64, String> {
    match parse_span(s) {
        Some(span) => span.map(|span| now_ms - span),
        None => parse_js_date(s.trim()).ok_or_else(|| bad_when(s)),
    }
}

/// A span (`30s`, `15m`, `2h`, `3d`, `1w`) in ms; `None` when `s` is not of that form (digits
/// and one letter), an error when it is but its unit is unknown or it is too large.
pub(crate) fn parse_span(s: &str) -> Option<Result<i64, String>> {
    let trimmed = s.trim();
    let unit = trimmed.chars().last()?;
    let digits = &trimmed[..trimmed.len() - unit.len_utf8()];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let too_large = || format!("'{s}' is too large");
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
pub(crate) fn span_text(ms: i64) -> String {
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

fn bad_when(s: &str) -> String {
    format!("invalid time '{s}': use an ISO date (2026-01-31, 2026-01-31T12:00:00Z) or a span (30m, 2h, 3d, 1w)")
}

/// `3h ago`, `just now`, `5d ago`; older than four weeks, the date.
pub(crate) fn relative(ms: i64, now_ms: i64) -> String {
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
pub(crate) fn local_time(ms: i64, tz: &TimeZone) -> String {
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
        assert_eq!(parse_when("2h", now), Ok(now - 7_200_000));
        assert_eq!(parse_when("1w", now), Ok(now - 604_800_000));
        assert!(parse_when("2x", now).is_err());
        assert!(parse_when("soon", now).is_err());
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
