//! A tool call as one comparable key: the tool's name and its key argument, so that two runs'
//! calls can be aligned (`diff`) or frozen and compared (`check --baseline`). The key argument
//! is the path of pi's file tools (one spelling, [`crate::views::paths::normal`] against the
//! session's cwd), the first word of a `bash` command (`cargo test -p x` and `cargo build` are
//! both `bash cargo`: the program run, not its arguments, which differ on every retry), and
//! nothing for other tools. The key is raw session text: printers escape it.

use serde_json::Value;

use crate::views::paths;

/// `name` or `name argument`; a name that is no string is `?`.
pub fn key(call: pisess_format::model::ToolCall<'_>, cwd: &str) -> String {
    let name = call.name.and_then(Value::as_str).unwrap_or("?");
    let argument = |k: &str| {
        call.arguments
            .and_then(|a| a.get(k))
            .and_then(Value::as_str)
    };
    let detail = match name {
        "read" | "write" | "edit" => argument("path").map(|p| paths::normal(p, cwd)),
        "bash" => argument("command")
            .and_then(|c| c.split_whitespace().next())
            .map(str::to_owned),
        _ => None,
    };
    match detail {
        Some(d) => format!("{name} {d}"),
        None => name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::key;
    use pisess_format::model::ToolCall;
    use serde_json::{json, Value};

    fn of(name: Value, arguments: Value) -> String {
        let call = ToolCall {
            id: None,
            name: Some(&name),
            arguments: Some(&arguments),
        };
        key(call, "/w")
    }

    #[test]
    fn a_tool_and_its_key_argument() {
        assert_eq!(
            of(json!("read"), json!({"path": "/w/src/x.rs"})),
            "read src/x.rs"
        );
        assert_eq!(
            of(json!("edit"), json!({"path": "./src/x.rs"})),
            "edit src/x.rs"
        );
        assert_eq!(of(json!("write"), json!({"path": 5})), "write");
        assert_eq!(
            of(json!("bash"), json!({"command": "  cargo test -p x"})),
            "bash cargo"
        );
        assert_eq!(of(json!("bash"), json!({"command": ""})), "bash");
        assert_eq!(of(json!("grep"), json!({"pattern": "x"})), "grep");
        assert_eq!(of(json!(7), json!({})), "?");
    }
}
