//! A hostile session for the export tests: every text tries to run a script, load something,
//! or break out of the structure around it (fences of every length, HTML, `</details>`,
//! `</script>`, `javascript:` links, Markdown images). Shared by the Markdown and browser tests.

use serde_json::{json, Value};

/// The session's JSONL, the texts a reader must find in every export (each as plain text),
/// and the tool names.
pub(crate) struct Hostile {
    pub jsonl: String,
    pub texts: Vec<&'static str>,
    pub tool_names: Vec<&'static str>,
}

/// A 1×1 PNG.
pub(crate) const PNG_1X1: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

pub(crate) fn hostile() -> Hostile {
    let texts: Vec<&'static str> = vec![
        "<script>window.pwned='user script'</script>",
        "</details></summary></pre></article></main>",
        "<iframe src=\"https://evil.example/frame\"></iframe>",
        "</script><script>window.pwned='breakout'</script>",
        "<img src=\"https://evil.example/x.png\" onerror=\"window.pwned='onerror'\">",
        "<base href=\"https://evil.example/\">",
        "<svg onload=\"window.pwned='svg'\"></svg>",
        "<meta http-equiv=\"refresh\" content=\"0;url=https://evil.example/\">",
        "<link rel=\"stylesheet\" href=\"https://evil.example/x.css\">",
        "<style>body{display:none}</style>",
        "<!-- an unclosed comment",
        "<a href=\"javascript:window.pwned='anchor'\">anchor probe</a>",
    ];
    let fences = "Fences of every length:\n\n````\n```\nthree inside four\n```\n````\n\n~~~\n<b>in tilde fence</b>\n~~~\n\n``````````\nten backticks\n``````````\n\nand one left open:\n\n```\n<script>window.pwned='open fence'</script>\nopen fence probe";
    let links = "link probe [click me](javascript:window.pwned='link') and [case](JaVaScRiPt:alert(1)) and ![tracker image](https://evil.example/pixel.png) and [ref probe][r]\n\n[r]: javascript:window.pwned='ref'";
    let spans =
        "span probe a ` b\n`<b>code span</b>` c and ``double `tick` span`` and a stray ``` run\n\n> ```\n> quoted `<i>quoted span</i>` probe";
    let thinking = "</details><script>window.pwned='thinking'</script>thinking probe";
    let tool_names: Vec<&'static str> = vec!["bash", "ev<i>l</i>&tool\"</summary>"];
    let args = json!({"command": "echo '</details>' '</script>' \"````\"", "note": "<script>window.pwned='args'</script>"});
    let result = "</pre><script>window.pwned='pre'</script>\n`````\nresult probe ``` ~~~~";
    let bash_out = "</pre></details><img src=x onerror=\"window.pwned='bash'\">bash probe";
    let summary = "<script>window.pwned='summary'</script>summary probe";
    let name = "</title><script>window.pwned='title'</script>";
    let mut lines: Vec<Value> = vec![json!({
        "type": "session", "version": 3, "id": "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee",
        "timestamp": "2025-06-01T10:00:00.000Z", "cwd": "/tmp/<script>window.pwned='cwd'</script>"
    })];
    let mut n = 0;
    let mut push = |lines: &mut Vec<Value>, mut entry: Value| {
        n += 1;
        let id = format!("{n:08x}");
        let parent = if n == 1 {
            Value::Null
        } else {
            json!(format!("{:08x}", n - 1))
        };
        let obj = entry.as_object_mut().unwrap();
        obj.insert("id".into(), json!(id));
        obj.insert("parentId".into(), parent);
        obj.insert(
            "timestamp".into(),
            json!(format!("2025-06-01T10:{:02}:00.000Z", n)),
        );
        lines.push(entry);
    };
    push(&mut lines, json!({"type": "session_info", "name": name}));
    let user_text = texts.join("\n\n");
    push(
        &mut lines,
        json!({"type": "message", "message": {"role": "user", "content": user_text, "timestamp": 1}}),
    );
    push(
        &mut lines,
        json!({"type": "message", "message": {"role": "user", "content": [
        {"type": "text", "text": links},
        {"type": "image", "mimeType": "image/png", "data": PNG_1X1},
        {"type": "image", "mimeType": "image/svg+xml", "data": "PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"}
    ], "timestamp": 2}}),
    );
    push(
        &mut lines,
        json!({"type": "message", "message": {"role": "assistant", "content": [
        {"type": "thinking", "thinking": thinking},
        {"type": "text", "text": fences},
        {"type": "text", "text": spans},
        {"type": "toolCall", "id": "call-1", "name": tool_names[0], "arguments": args},
        {"type": "toolCall", "id": "call-2", "name": tool_names[1], "arguments": {"x": 1}}
    ], "provider": "evil<b>", "model": "m</summary>", "usage": {"cost": {"total": 0.25}}, "stopReason": "toolUse", "timestamp": 3}}),
    );
    push(
        &mut lines,
        json!({"type": "message", "message": {"role": "toolResult", "toolCallId": "call-1", "toolName": tool_names[0], "content": [{"type": "text", "text": result}], "isError": false, "timestamp": 4}}),
    );
    push(
        &mut lines,
        json!({"type": "message", "message": {"role": "toolResult", "toolCallId": "call-2", "toolName": tool_names[1], "content": [{"type": "text", "text": "second result probe"}], "isError": true, "timestamp": 5}}),
    );
    push(
        &mut lines,
        json!({"type": "message", "message": {"role": "bashExecution", "command": "cat '</pre>'", "output": bash_out, "exitCode": 1, "cancelled": false, "truncated": false, "timestamp": 6}}),
    );
    push(
        &mut lines,
        json!({"type": "branch_summary", "fromId": "00000001", "summary": summary}),
    );
    push(
        &mut lines,
        json!({"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": "final probe: done"}], "provider": "p", "model": "m", "stopReason": "stop", "timestamp": 7}}),
    );
    let jsonl = lines.iter().map(|l| format!("{l}\n")).collect();
    let mut all = texts.clone();
    all.extend([
        "three inside four",
        "<b>in tilde fence</b>",
        "ten backticks",
        "<script>window.pwned='open fence'</script>",
        "open fence probe",
        "link probe",
        "tracker image",
        "ref probe",
        "span probe",
        "<b>code span</b>",
        "<i>quoted span</i>",
        "thinking probe",
        "result probe",
        "</pre><script>window.pwned='pre'</script>",
        "second result probe",
        "bash probe",
        "summary probe",
        "final probe: done",
        "<script>window.pwned='args'</script>",
    ]);
    Hostile {
        jsonl,
        texts: all,
        tool_names,
    }
}
