//! The seed-000 dialect mapped onto pi's shape, once, so every later step reads one model.

use serde_json::{json, Map, Value};

use super::entry::number;

/// Maps one seed-000 line onto pi's shape, so every later step reads a single model.
///
/// `user_message`/`assistant_message`/`tool_result` become `message` entries; blocks
/// `tool_use`, `thinking.text` and `image.source` become pi's `toolCall`, `thinking.thinking`
/// and `image{data,mimeType}`; usage `inputTokens`... becomes pi's usage with `cost.total`.
/// Other types (`tool_call`, `thinking`, `compaction`, `branch_summary`) keep their type.
pub fn normalize_seed000(mut line: Value) -> Value {
    let Some(obj) = line.as_object_mut() else {
        return line;
    };
    let kind = obj
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let role = match kind.as_str() {
        "user_message" => "user",
        "assistant_message" => "assistant",
        "tool_result" => "toolResult",
        _ => {
            if let Some(content) = obj.get_mut("content") {
                normalize_seed000_blocks(content);
            }
            // The dialect's compaction counts its summary in `tokenCount`.
            if kind == "compaction" && !obj.contains_key("tokensBefore") {
                if let Some(count) = obj.get("tokenCount").cloned() {
                    obj.insert("tokensBefore".into(), count);
                }
            }
            return line;
        }
    };
    let mut message = Map::new();
    message.insert("role".into(), Value::from(role));
    let content = match role {
        "toolResult" => obj
            .get("output")
            .and_then(|o| o.get("content"))
            .cloned()
            .unwrap_or_else(|| json!([])),
        _ => obj.get("content").cloned().unwrap_or_else(|| json!([])),
    };
    let mut content = content;
    normalize_seed000_blocks(&mut content);
    message.insert("content".into(), content);
    if role == "assistant" {
        message.insert("provider".into(), Value::Null);
        let model = obj.get("modelId").cloned().unwrap_or(Value::Null);
        message.insert("model".into(), model);
        message.insert("usage".into(), seed000_usage(obj));
        if let Some(level) = obj.get("thinkingLevel") {
            message.insert("thinkingLevel".into(), level.clone());
        }
        let stop = if content_has_tool_use(obj.get("content")) {
            "toolUse"
        } else {
            "stop"
        };
        message.insert("stopReason".into(), Value::from(stop));
    }
    if role == "toolResult" {
        for (from, to) in [
            ("toolCallId", "toolCallId"),
            ("toolName", "toolName"),
            ("details", "details"),
        ] {
            if let Some(v) = obj.get(from) {
                message.insert(to.into(), v.clone());
            }
        }
        let is_error = obj.get("isError").cloned().unwrap_or(Value::Bool(false));
        message.insert("isError".into(), is_error);
    }
    if let Some(ms) = obj
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(crate::time::parse_js_date)
    {
        message.insert("timestamp".into(), Value::from(ms));
    }
    let mut out = Map::new();
    out.insert("type".into(), Value::from("message"));
    for key in ["id", "parentId", "timestamp"] {
        if let Some(v) = obj.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    out.insert("message".into(), Value::Object(message));
    Value::Object(out)
}

fn content_has_tool_use(content: Option<&Value>) -> bool {
    content
        .and_then(Value::as_array)
        .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_use"))
}

fn seed000_usage(obj: &Map<String, Value>) -> Value {
    let u = obj.get("usage");
    let n = |key: &str| {
        u.and_then(|u| u.get(key))
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
    };
    let (input, output, read, write) = (
        n("inputTokens"),
        n("outputTokens"),
        n("cacheReadTokens"),
        n("cacheWriteTokens"),
    );
    let cost = obj.get("cost").and_then(Value::as_f64).unwrap_or(0.0);
    json!({
        "input": number(input), "output": number(output),
        "cacheRead": number(read), "cacheWrite": number(write),
        "totalTokens": number(input + output + read + write),
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost},
    })
}

fn normalize_seed000_blocks(content: &mut Value) {
    let Some(blocks) = content.as_array_mut() else {
        return;
    };
    for block in blocks {
        let Some(b) = block.as_object_mut() else {
            continue;
        };
        match b.get("type").and_then(Value::as_str) {
            Some("tool_use") => {
                let mut call = Map::new();
                call.insert("type".into(), Value::from("toolCall"));
                call.insert("id".into(), b.get("id").cloned().unwrap_or(Value::Null));
                call.insert("name".into(), b.get("name").cloned().unwrap_or(Value::Null));
                call.insert(
                    "arguments".into(),
                    b.get("input").cloned().unwrap_or_else(|| json!({})),
                );
                *b = call;
            }
            Some("thinking") if !b.contains_key("thinking") => {
                if let Some(text) = b.remove("text") {
                    b.insert("thinking".into(), text);
                }
            }
            Some("image") => {
                if let Some(source) = b.remove("source") {
                    b.insert(
                        "data".into(),
                        source.get("data").cloned().unwrap_or(Value::Null),
                    );
                    let mime = source.get("mediaType").or_else(|| source.get("media_type"));
                    b.insert("mimeType".into(), mime.cloned().unwrap_or(Value::Null));
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed000_assistant_maps_to_pi_shape() {
        let line = json!({
            "type":"assistant_message","id":"e2","parentId":"e1","timestamp":"2026-07-31T12:00:03Z",
            "modelId":"claude","content":[{"type":"text","text":"ok"},
              {"type":"tool_use","id":"tc","name":"write","input":{"path":"a"}}],
            "usage":{"inputTokens":1500,"outputTokens":120,"cacheReadTokens":200,"cacheWriteTokens":0},
            "cost":0.005});
        let e = normalize_seed000(line);
        assert_eq!(e["type"], "message");
        assert_eq!(e["message"]["role"], "assistant");
        assert_eq!(e["message"]["model"], "claude");
        assert_eq!(e["message"]["content"][1]["type"], "toolCall");
        assert_eq!(e["message"]["content"][1]["arguments"]["path"], "a");
        assert_eq!(e["message"]["usage"]["totalTokens"], 1820);
        assert_eq!(e["message"]["usage"]["cost"]["total"], 0.005);
        assert_eq!(e["message"]["stopReason"], "toolUse");
        assert_eq!(e["message"]["timestamp"], 1_785_499_203_000_i64);
    }

    #[test]
    fn seed000_tool_result_and_blocks() {
        let e = normalize_seed000(json!({"type":"tool_result","id":"e4","parentId":"e3",
            "toolCallId":"tc","toolName":"write","output":{"content":[{"type":"text","text":"done"}]},"isError":false}));
        assert_eq!(e["message"]["role"], "toolResult");
        assert_eq!(e["message"]["content"][0]["text"], "done");
        let t = normalize_seed000(
            json!({"type":"thinking","id":"t","content":[{"type":"thinking","text":"hmm"},
            {"type":"image","source":{"type":"base64","mediaType":"image/png","data":"AA=="}}]}),
        );
        assert_eq!(t["type"], "thinking");
        assert_eq!(t["content"][0]["thinking"], "hmm");
        assert_eq!(t["content"][1]["mimeType"], "image/png");
    }
}
