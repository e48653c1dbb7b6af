# Hostile session files aimed at issue 43's renovated read path (skim Deserializer, typed model, Pass,
# caches, grep driver, JSON printers). Writes NAME.jsonl into the folder given and a copy of each under
# store/--home-dev-h2--/ (so --session-dir store sees them all). Raw lines are bytes, written as is.
import json, os, shutil
import sys
D = sys.argv[1] if len(sys.argv) > 1 else "."
out = {}
def hdr(n, v=3, cwd="/home/dev/h2"):
    return '{"type":"session","version":%s,"id":"0196bbbb-0000-7000-8000-%012d","timestamp":"2025-07-01T10:00:00.000Z","cwd":%s}' % (v, n, json.dumps(cwd))
U = '{"input":100,"output":20,"cacheRead":5,"cacheWrite":1,"totalTokens":126,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}}'
def user(i, p, content='"hi ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 there"', extra=""):
    return '{"type":"message","id":"%s","parentId":%s,"timestamp":"2025-07-01T10:00:%02d.000Z","message":{"role":"user","content":%s,"timestamp":1751364000000%s}}' % (i, json.dumps(p), int(i[-1], 16), content, extra)
def asst(i, p, content='[{"type":"text","text":"ok fine"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls -la"}}]', usage=U, stop='"toolUse"', extra=""):
    return '{"type":"message","id":"%s","parentId":%s,"timestamp":"2025-07-01T10:00:%02d.000Z","message":{"role":"assistant","content":%s,"provider":"anthropic","model":"claude-x","usage":%s,"stopReason":%s,"timestamp":1751364001000%s}}' % (i, json.dumps(p), int(i[-1], 16), content, usage, stop, extra)
def tres(i, p, content='[{"type":"text","text":"file a\\nfile b"}]', name='"bash"', err='true', extra=""):
    return '{"type":"message","id":"%s","parentId":%s,"timestamp":"2025-07-01T10:00:%02d.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":%s,"content":%s,"isError":%s,"timestamp":1751364002000%s}}' % (i, json.dumps(p), int(i[-1], 16), name, content, err, extra)
def base(n, *middle):
    return [hdr(n), user("e0000001", None)] + list(middle)
n = [0]
def f(name, lines, raw=None):
    n[0] += 1
    out[name] = raw if raw is not None else ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
def s(name, *lines):
    n[0] += 1
    out[name] = ("\n".join([hdr(n[0]), user("e0000001", None)] + list(lines)) + "\n").encode("utf-8", "surrogatepass")

# escaped keys and values the skim must unescape like serde_json
s("esckeys", asst("e0000002", "e0000001").replace('"role"', '"ro\\u006ce"').replace('"content"', '"con\\u0074ent"').replace('"usage"', '"\\u0075sage"').replace('"stopReason"', '"stop\\u0052eason"'),
  tres("e0000003", "e0000002").replace('"toolName"', '"tool\\u004eame"').replace('"isError"', '"is\\u0045rror"'))
s("escvals", asst("e0000002", "e0000001", stop='"tool\\u0055se"').replace('"assistant"', '"assist\\u0061nt"'),
  tres("e0000003", "e0000002", name='"ba\\u0073h"').replace('"toolResult"', '"tool\\u0052esult"'),
  '{"type":"mess\\u0061ge","id":"e0000004","parentId":"e0000003","message":{"role":"user","content":"escaped type"}}',
  '{"type":"message","id":"e000000\\u0035","parentId":"e000000\\u0034","message":{"role":"user","content":"escaped id"}}')
# duplicate keys: serde_json derive errors on duplicate fields; maps keep the last
for k, a, b in [("role", '"user"', '"assistant"'), ("content", '"first"', '[{"type":"text","text":"second"}]'),
                ("usage", U, '{"input":1,"output":2,"cost":{"total":5}}'), ("stopReason", '"stop"', '"error"')]:
    s("dup_" + k, asst("e0000002", "e0000001").replace('"provider"', '"%s":%s,"%s":%s,"provider"' % (k, a, k, b), 1).replace('"role":"assistant",', '', 1 if k == "role" else 0))
s("dup_toolName", tres("e0000003", "e0000001", name='"bash","toolName":"read"'))
s("dup_isError", tres("e0000003", "e0000001", err='true,"isError":false'))
s("dup_type", '{"type":"message","type":"label","id":"e0000002","parentId":"e0000001","targetId":"e0000001","label":"L","message":{"role":"user","content":"x"}}')
s("dup_id", '{"type":"message","id":"e0000002","id":"e0000009","parentId":"e0000001","message":{"role":"user","content":"dup id"}}',
  '{"type":"message","id":"e0000003","parentId":"e0000001","parentId":"e0000002","message":{"role":"user","content":"dup parent"}}')
s("dup_message", '{"type":"message","id":"e0000002","parentId":"e0000001","message":{"role":"user","content":"a"},"message":{"role":"assistant","content":"b","usage":%s}}' % U)
s("dup_cost", asst("e0000002", "e0000001", usage='{"input":10,"output":5,"cost":{"total":0.5,"total":0.25}}'))
s("dup_block", asst("e0000002", "e0000001", content='[{"type":"text","type":"toolCall","text":"t","id":"c9","name":"bash","name":"read","arguments":{"a":1},"arguments":"x"}]'))
# numbers in every form
for i, num in enumerate(["-0", "1e21", "1E-7", "0.1e1", "123456789012345678901234567890", "-1", "1.5", "18446744073709551615", "18446744073709551616", "9007199254740993", "1e400", "-1e400", "0e0", "4.9e-324", "1E+2", "00", "1.", ".5", "+1", "NaN", "Infinity", "0x10"]):
    u = '{"input":%s,"output":%s,"cacheRead":%s,"cacheWrite":%s,"totalTokens":%s,"cost":{"input":%s,"output":%s,"total":%s}}' % ((num,) * 8)
    s("num%02d" % i, asst("e0000002", "e0000001", usage=u), tres("e0000003", "e0000002", extra=',"details":%s' % num),
      asst("e0000004", "e0000003", usage=U, stop='"stop"', extra=',"timestamp2":%s' % num).replace('"timestamp":1751364001000', '"timestamp":%s' % num))
# strings where numbers belong, other wrong types in usage
for i, u in enumerate(['{"input":"100","output":"20","cost":{"total":"0.3"}}', '{"input":true,"output":null,"cost":null}',
                       '{"input":[1],"output":{"a":1},"cost":[0.3]}', '"usage"', '[]', 'null', '12', '{"cost":{"total":{"x":1}}}',
                       '{"input":1.5,"output":2.5,"cacheRead":0.5,"cacheWrite":0.5,"totalTokens":5,"cost":{"total":-0.3}}']):
    s("usage%02d" % i, asst("e0000002", "e0000001", usage=u), asst("e0000003", "e0000002", usage=U, stop='"stop"'))
# lone surrogates, NUL, in keys and values
s("surr", user("e0000002", "e0000001", content='"lo\\ud800ne \\udc00 \\u0000 nul \\ud83d\\ude00 pair"'),
  asst("e0000003", "e0000002", content='[{"type":"text","text":"\\ud800"},{"type":"toolCall","id":"c\\u0000","name":"ba\\ud800sh","arguments":{"\\ud800":"\\u0000"}}]'),
  '{"type":"message","id":"e0000004","parentId":"e0000003","message":{"ro\\u0000le":"user","role":"user","content":"nul key"}}',
  '{"type":"message","id":"e0000005","parentId":"e0000004","message":{"role":"us\\ud800er","content":"surrogate role"}}',
  '{"type":"message","id":"e\\ud8006","parentId":"e0000005","message":{"role":"user","content":"surrogate id"}}')
s("badesc", '{"type":"message","id":"e0000002","parentId":"e0000001","message":{"role":"user","content":"bad \\x escape"}}',
  '{"type":"message","id":"e0000003","parentId":"e0000001","message":{"role":"user","content":"bad \\u12 escape"}}',
  '{"type":"message","id":"e0000004","parentId":"e0000001","message":{"role":"user","content":"raw\ttab and raw \x01 ctl"}}',
  '{"type":"message","id":"e0000005","parentId":"e0000001","message":{"role":"user","content":"ok after"}}')
# BOM, CR, whitespace
f("bom", None, ("\ufeff" + hdr(90) + "\n" + user("e0000001", None) + "\n").encode())
f("bom2", None, (hdr(91) + "\n\ufeff" + user("e0000001", None) + "\n").encode())
f("cr_only", None, (hdr(92) + "\r" + user("e0000001", None) + "\r").encode())
f("crlf_mid", None, (hdr(93) + "\r\n" + user("e0000001", None).replace(',"message"', '\r\n,"message"') + "\r\n" + asst("e0000002", "e0000001") + "\r\n").encode())
f("ws", None, ("  " + hdr(94) + "  \n\t" + user("e0000001", None) + "\t\n   \n" + asst("e0000002", "e0000001").replace(":", " : ").replace(",", " ,\t") + "\n").encode())
f("noeol", None, (hdr(95) + "\n" + user("e0000001", None) + "\n" + asst("e0000002", "e0000001")).encode())
f("torn", None, (hdr(96) + "\n" + user("e0000001", None) + "\n" + asst("e0000002", "e0000001")[:120]).encode())
f("trailing", None, (hdr(97) + "\n" + user("e0000001", None) + " xyz\n" + asst("e0000002", "e0000001") + "}\n" + tres("e0000003", "e0000002") + ",\n").encode())
f("twoobj", None, (hdr(98) + "\n" + user("e0000001", None) + user("e0000002", "e0000001") + "\n").encode())
# deep nesting in every place
for d in [64, 127, 128, 129, 200, 5000]:
    deep = "[" * d + "]" * d
    s("deep%d" % d, user("e0000002", "e0000001", content=deep), asst("e0000003", "e0000002", extra=',"x":' + deep),
      asst("e0000004", "e0000003", content='[{"type":"toolCall","id":"c","name":"bash","arguments":%s}]' % ('{"a":' * d + '1' + '}' * d)),
      '{"type":"custom","id":"e0000005","parentId":"e0000004","data":%s}' % deep, user("e0000006", "e0000005", content='"after deep"'))
s("longstr", user("e0000002", "e0000001", content='"' + "x\\\"y\\\\" * 200000 + ' AKIAQWERTYUIOPASDFGH"'),
  asst("e0000003", "e0000002", content='[{"type":"text","text":"' + "é" * 300000 + '"}]'), '{"type":"message","id":"' + "i" * 100000 + '","parentId":"e0000003","message":{"role":"user","content":"long id"}}')
# invalid UTF-8
f("badutf8", None, (hdr(99) + "\n").encode() + user("e0000001", None).encode().replace(b"hi ", b"hi \xff\xfe \xc3 ") + b"\n" +
  asst("e0000002", "e0000001").encode().replace(b"ok fine", b"ok \xed\xa0\x80 fine") + b"\n" + b'{"type":"message","id":"e000\xff3","parentId":"e0000002","message":{"r\xc3le":"user","content":"x"}}\n' +
  tres("e0000004", "e0000002").encode().replace(b'"bash"', b'"ba\xe2\x82sh"') + b"\n")
f("badutf8hdr", None, hdr(100, cwd="/home/dev/h2").encode().replace(b"h2", b"h\xff2") + b"\n" + user("e0000001", None).encode() + b"\n")
# wrong JSON types in typed-model fields
for i, m in enumerate(['null', '1', '"str"', '[]', '{}', 'true', '{"role":1,"content":"x"}', '{"role":{"a":1},"content":"x"}', '{"role":null,"content":"x"}',
                       '{"role":"user","content":{"type":"text","text":"obj"}}', '{"role":"user","content":5}', '{"role":"user","content":null}', '{"role":"user"}',
                       '{"role":"user","content":[1,"s",null,{"type":1},{"type":"text","text":5},{"type":"text"},{"type":"image","data":1}]}',
                       '{"role":"assistant","content":[{"type":"toolCall","id":1,"name":2,"arguments":3}]}',
                       '{"role":"assistant","content":[{"type":"toolCall","name":null,"arguments":null}]}',
                       '{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":"not an object"}]}',
                       '{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":"{\\"command\\":\\"ls\\"}"}]}',
                       '{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":[1,2]}]}',
                       '{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":{"x":1},"arguments":{}}]}',
                       '{"role":"assistant","content":"s","stopReason":5,"usage":' + U + ',"errorMessage":7,"model":1,"provider":[]}',
                       '{"role":"assistant","content":[{"type":"thinking","thinking":5},{"type":"thinking"},{"type":"text","text":null}],"stopReason":null}',
                       '{"role":"toolResult","toolCallId":5,"toolName":5,"content":"s","isError":"true"}',
                       '{"role":"toolResult","toolName":null,"content":null,"isError":1}',
                       '{"role":"toolResult","toolName":"bash","content":{"a":1},"isError":null}',
                       '{"role":"bashExecution","command":5,"output":null,"exitCode":"x","cancelled":"no"}',
                       '{"role":"bashExecution","command":"ls","output":"o","exitCode":1e400}',
                       '{"role":"custom","customType":1,"content":5,"display":"yes"}',
                       '{"role":"branchSummary","summary":5,"fromId":1}', '{"role":"compactionSummary","summary":null,"tokensBefore":"x"}',
                       '{"role":"system","content":"sys"}', '{"role":"","content":"empty role"}', '{"role":"User","content":"cap role"}']):
    s("type%02d" % i, asst("e0000002", "e0000001", stop='"stop"'),
      '{"type":"message","id":"e0000003","parentId":"e0000002","timestamp":"2025-07-01T10:00:03.000Z","message":%s}' % m,
      user("e0000004", "e0000003", content='"after odd"'), asst("e0000005", "e0000004", content='[{"type":"text","text":"end"}]', stop='"stop"'))
# entry fields of odd types
for i, e in enumerate(['{"type":"message","id":5,"parentId":"e0000001","message":{"role":"user","content":"num id"}}',
                       '{"type":"message","id":null,"parentId":null,"message":{"role":"user","content":"null id"}}',
                       '{"type":"message","id":"e0000002","parentId":["e0000001"],"message":{"role":"user","content":"arr parent"}}',
                       '{"type":5,"id":"e0000002","parentId":"e0000001"}', '{"type":null,"id":"e0000002","parentId":"e0000001"}',
                       '{"id":"e0000002","parentId":"e0000001","message":{"role":"user","content":"no type"}}',
                       '{"type":"message","id":"e0000002","parentId":"e0000001","timestamp":5,"message":{"role":"user","content":"num ts"}}',
                       '{"type":"message","id":"e0000002","parentId":"e0000001","timestamp":"not a date","message":{"role":"user","content":"bad ts"}}',
                       '{"type":"label","id":"e0000002","parentId":"e0000001","targetId":5,"label":null}',
                       '{"type":"compaction","id":"e0000002","parentId":"e0000001","summary":5,"firstKeptEntryId":5,"tokensBefore":1e400}',
                       '{"type":"branch_summary","id":"e0000002","parentId":"e0000001","summary":null,"fromId":null}',
                       '{"type":"model_change","id":"e0000002","parentId":"e0000001","provider":5,"modelId":null}',
                       '{"type":"session_info","id":"e0000002","parentId":"e0000001","name":5}',
                       '{"type":"custom_message","id":"e0000002","parentId":"e0000001","customType":null,"content":[{"type":"text","text":"cm"}],"display":1}',
                       '{"type":"session","version":3,"id":"0196bbbb-0000-7000-8000-999999999999","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/x"}']):
    s("entry%02d" % i, e, user("e0000003", "e0000002", content='"after"'), asst("e0000004", "e0000003", stop='"stop"'))
# headers: versions and odd header fields
for i, h in enumerate(['{"type":"session","version":1,"id":"v1","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/v"}',
                       '{"type":"session","version":2,"id":"v2","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/v"}',
                       '{"type":"session","version":4,"id":"v4","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/v"}',
                       '{"type":"session","version":"3","id":"vs","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/v"}',
                       '{"type":"session","version":3.0,"id":"vf","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/v"}',
                       '{"type":"session","version":-1,"id":"vn","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/v"}',
                       '{"type":"session","version":1e21,"id":"vb","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/v"}',
                       '{"type":"session","id":5,"timestamp":5,"cwd":5}', '{"type":"session"}',
                       '{"type":"se\\u0073sion","version":3,"id":"ve","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/v"}',
                       '{"type":"session","version":3,"version":1,"id":"vd","id":"vd2","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/a","cwd":"/b"}',
                       '{"type":"session","version":3,"id":"vp","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/v","parentSession":5,"branchedFrom":"/nonexistent.jsonl"}']):
    v2 = i in (0, 1)
    lines = [h]
    if v2:
        lines += ['{"type":"message","timestamp":"2025-07-01T10:00:01.000Z","message":{"role":"user","content":"old hi"}}',
                  '{"type":"message","timestamp":"2025-07-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"old ok"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a"}}],"usage":%s,"stopReason":"toolUse"}}' % U,
                  '{"type":"message","timestamp":"2025-07-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":"r","isError":false}}',
                  '{"type":"message","timestamp":"2025-07-01T10:00:04.000Z","message":{"role":"hookMessage","customType":"h","content":"hook"}}',
                  '{"type":"compaction","timestamp":"2025-07-01T10:00:05.000Z","summary":"s","firstKeptEntryIndex":2,"tokensBefore":10}',
                  '{"type":"compaction","timestamp":"2025-07-01T10:00:05.000Z","summary":"s","firstKeptEntryIndex":99}',
                  '{"type":"message","timestamp":"2025-07-01T10:00:06.000Z","message":{"role":"assistant","content":"fin","usage":%s,"stopReason":"stop"}}' % U]
    else:
        lines += [user("e0000001", None), asst("e0000002", "e0000001", stop='"stop"')]
    f("hdr%02d" % i, lines)
f("seed0", ['{"type":"session","version":0,"id":"s0","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/s"}',
            '{"type":"user_message","id":"s1","parentId":null,"content":[{"type":"text","text":"seed"}]}',
            '{"type":"assistant_message","id":"s2","parentId":"s1","content":[{"type":"tool_use","id":"t1","name":5,"input":"x"},{"type":"text","text":5}],"usage":{"inputTokens":"10","outputTokens":1e21,"costUsd":-0},"model":5}',
            '{"type":"tool_result","id":"s3","parentId":"s2","toolUseId":"t1","content":{"a":1},"isError":"yes"}',
            '{"type":"assistant_message","id":"s4","parentId":"s3","content":"plain","usage":{"inputTokens":1,"inputTokens":2,"outputTokens":3,"costUsd":0.5}}'])
f("seed0_noversion", ['{"type":"session","id":"s0b","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/s"}',
            '{"type":"user_message","id":"s1","parentId":null,"content":"seed hi"}',
            '{"type":"assistant_message","id":"s2","parentId":"s1","content":[{"type":"text","text":"x"}],"usage":{"inputTokens":10,"outputTokens":2,"costUsd":0.01}}'])
# costs for the JSON printers
for i, c in enumerate(["0.1", "0.30000000000000004", "1e-300", "123456789.123456789", "5e-324", "1.7976931348623157e308", "-0.0", "0.000001", "1e15", "2.5e-7"]):
    s("cost%02d" % i, *[asst("e00000%02d" % (j + 2), "e00000%02d" % (j + 1) if j else "e0000001",
        usage='{"input":%d,"output":7,"cacheRead":3,"cacheWrite":1,"totalTokens":11,"cost":{"input":%s,"output":%s,"cacheRead":0,"cacheWrite":0,"total":%s}}' % (j, c, c, c),
        stop='"stop"' if j == 2 else '"toolUse"') for j in range(3)])
for name, data in out.items():
    with open(os.path.join(D, name + ".jsonl"), "wb") as fh:
        fh.write(data)
st = os.path.join(D, "store", "--home-dev-h2--")
shutil.rmtree(os.path.join(D, "store"), ignore_errors=True)
os.makedirs(st)
for k, name in enumerate(sorted(out)):
    shutil.copy(os.path.join(D, name + ".jsonl"), os.path.join(st, "2025-07-01T10-00-%02d-000Z_%s.jsonl" % (k % 60, name)))
print(len(out), "files")
