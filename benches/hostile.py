# Hostile and odd session files for benches/same-output.sh: malformed lines, v1 and seed-000
# files, CRLF, a bad header, wrong JSON types, cycles, lone surrogates, bidi and C1
# characters, secrets, a long line and deep nesting. Writes them into the current folder.
import json, os
H = {"type":"session","version":3,"id":"0196aaaa-0000-7000-8000-000000000001","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/home/dev/h\u202eostile"}
def w(name, lines):
    with open(name, 'w', encoding='utf-8', newline='') as f:
        for l in lines:
            f.write((l if isinstance(l, str) else json.dumps(l, ensure_ascii=False)) + "\n")
def msg(i, p, m, ts="2025-06-01T10:00:%02d.000Z"):
    return {"type":"message","id":i,"parentId":p,"timestamp":ts % (int(i[-2:],16)%60),"message":m}
U = {"input":100,"output":20,"cacheRead":5,"cacheWrite":1,"totalTokens":126,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}}
A = lambda content, **k: dict({"role":"assistant","content":content,"provider":"anthropic","model":"claude\u0085x","usage":U,"stopReason":"toolUse","timestamp":1748772000000}, **k)
key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
aws = "AKIA" + "QWERTYUIOPASDFGH"
w("mixed.jsonl", [H,
 {"type":"model_change","id":"a0000001","parentId":None,"timestamp":"2025-06-01T10:00:01.000Z","provider":"openai","modelId":"gpt\u001b[31m"},
 msg("a0000002","a0000001",{"role":"user","content":"hello \u202e evil \x1b]8;;http://x\x07 link " + key,"timestamp":1748772001000}),
 msg("a0000003","a0000002",A([{"type":"thinking","thinking":"hmm"},{"type":"text","text":"ok"},{"type":"toolCall","id":"call_"+aws,"name":"bash","arguments":{"command":"echo " + aws + " && ls"}}])),
 msg("a0000004","a0000003",{"role":"toolResult","toolCallId":"call_"+aws,"toolName":"bash","content":[{"type":"text","text":"out\nline2 token=" + key}],"isError":True,"timestamp":1748772003000}),
 "{not json at all",
 "",
 msg("a0000005","a0000004",A("string content", usage={"input":-5,"output":"7","cacheRead":None,"cacheWrite":1e308,"cost":{"total":"x"}})),
 {"type":"label","id":"a0000006","parentId":"a0000005","timestamp":"2025-06-01T10:00:06.000Z","targetId":"a0000003","label":"lbl \u2066x"},
 {"type":"compaction","id":"a0000007","parentId":"a0000006","timestamp":"2025-06-01T10:00:07.000Z","summary":"sum","firstKeptEntryId":"a0000003","tokensBefore":"12"},
 msg("a0000008","a0000007",{"role":"user","content":[{"type":"text","text":"after"},{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}],"timestamp":1748772008000}),
 msg("a0000009","a0000003",{"role":"bashExecution","command":"rm -rf /","output":"x","exitCode":"1","timestamp":1748772009000}),
 {"type":"custom_message","id":"a000000a","parentId":"a0000008","timestamp":"2025-06-01T10:00:10.000Z","customType":"hook","content":"c","display":True},
 {"type":"branch_summary","id":"a000000b","parentId":"a000000a","timestamp":"2025-06-01T10:00:11.000Z","summary":"bs","fromId":"a0000009"},
 {"type":"custom","id":"a000000c","parentId":"a000000b","customType":"x","data":{"deep":[[[[{"k":key}]]]]}},
 {"type":"weird_type","id":"a000000d","parentId":"a000000c"},
 msg("a000000e","a000000d",{"role":"custom_role","content":123}),
 msg("a000000f","a000000e",A([{"type":"toolCall","id":"c2","name":"edit","arguments":"{\"path\":\"src/x.ts\"}"},{"type":"unknownBlock"}], stopReason="error", errorMessage="boom")),
 {"type":"session_info","id":"a0000010","parentId":"a000000f","name":"name\twith\ttabs"},
 {"type":"thinking_level_change","id":"a0000011","parentId":"a0000010","thinkingLevel":7},
 {"type":"message","id":"a0000012","parentId":"a0000011","message":None},
 {"type":"message","id":"a0000013","parentId":"nonexistent","message":{"role":"user","content":"orphan"}},
 {"type":"message","id":"a0000014","parentId":"a0000015","message":{"role":"user","content":"cyc1"}},
 {"type":"message","id":"a0000015","parentId":"a0000014","message":{"role":"user","content":"cyc2"}},
 '{"type":"message","id":"a0000016","parentId":"a0000012","message":{"role":"user","content":"lone \\ud800 surrogate \\u0000 nul"}}',
 '{"type":"message","id":"a0000017","parentId":"a0000016","message":{"role":"assistant","content":[{"type":"text","text":"dup keys"}],"content":[{"type":"text","text":"second"}],"usage":{"input":1e400,"output":0.1,"cost":{"total":1e-7}}}}',
])
# v1 session: no ids
w("v1.jsonl", [{"type":"session","id":"0196aaaa-0000-7000-8000-000000000002","timestamp":"2025-06-02T10:00:00.000Z","cwd":"/tmp/v1"},
 {"type":"message","timestamp":"2025-06-02T10:00:01.000Z","message":{"role":"user","content":"v1 hi"}},
 {"type":"message","timestamp":"2025-06-02T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"v1 ok"}],"usage":U}},
 {"type":"message","timestamp":"2025-06-02T10:00:03.000Z","message":{"role":"hookMessage","content":"hook"}},
 {"type":"compaction","timestamp":"2025-06-02T10:00:04.000Z","summary":"s","firstKeptEntryIndex":"1"}])
# header only, header broken, empty, not a session
w("headeronly.jsonl", [H])
w("badheader.jsonl", ['{"type":"session","version":"2x"', msg("b0000001",None,{"role":"user","content":"x"})])
open("empty.jsonl","w").close()
w("foreign.jsonl", [{"hello":"world"}, [1,2,3], "null"])
w("crlf.jsonl", [json.dumps(H) + "\r", json.dumps(msg("c0000001",None,{"role":"user","content":"crlf line"})) + "\r"])
# seed-000 dialect
w("seed000.jsonl", [{"type":"session","version":0,"id":"0196aaaa-0000-7000-8000-000000000003","timestamp":"2025-06-03T10:00:00.000Z","cwd":"/tmp/s"},
 {"type":"user_message","id":"s1","parentId":None,"timestamp":"2025-06-03T10:00:01.000Z","content":"seed hi"},
 {"type":"assistant_message","id":"s2","parentId":"s1","timestamp":"2025-06-03T10:00:02.000Z","content":[{"type":"tool_use","id":"t1","name":"read","input":{"path":"a"}},{"type":"thinking","text":"th"}],"usage":{"inputTokens":10,"outputTokens":2,"costUsd":0.01},"model":"m"},
 {"type":"tool_result","id":"s3","parentId":"s2","timestamp":"2025-06-03T10:00:03.000Z","toolUseId":"t1","content":"res","isError":False}])
# long line and deep nesting
w("long.jsonl", [H, msg("d0000001",None,{"role":"user","content":"L" * 300000 + " " + key}),
 msg("d0000002","d0000001",A([{"type":"toolCall","id":"c","name":"write","arguments":{"path":"p","content":json.dumps({"a":[json.dumps({"k":key})]})}}])),
 '{"type":"custom","id":"d0000003","parentId":"d0000002","data":' + "[" * 3000 + "]" * 3000 + "}"])
