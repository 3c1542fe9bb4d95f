// A JSON-like value type with a parser and a pretty printer: objects keep insertion
// order, strings with escapes (\n, \", \uXXXX), numbers (ints and floats), nested
// arrays; compact and indented output, queries by path, and parse errors with positions.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && (self.s[self.i] as char).is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.i))
    }
    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.s.get(self.i) {
            None => self.err("unexpected end"),
            Some(b'n') => self.lit("null", Json::Null),
            Some(b't') => self.lit("true", Json::Bool(true)),
            Some(b'f') => self.lit("false", Json::Bool(false)),
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b'[') => {
                self.i += 1;
                let mut v = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Arr(v));
                }
                loop {
                    v.push(self.value()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(v));
                        }
                        _ => return self.err("expected , or ]"),
                    }
                }
            }
            Some(b'{') => {
                self.i += 1;
                let mut v = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(v));
                }
                loop {
                    self.ws();
                    if self.s.get(self.i) != Some(&b'"') {
                        return self.err("expected key");
                    }
                    let k = self.string()?;
                    self.ws();
                    if self.s.get(self.i) != Some(&b':') {
                        return self.err("expected :");
                    }
                    self.i += 1;
                    v.push((k, self.value()?));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(v));
                        }
                        _ => return self.err("expected , or }"),
                    }
                }
            }
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let st = self.i;
                self.i += 1;
                while self.i < self.s.len() && matches!(self.s[self.i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
                    self.i += 1;
                }
                let t = std::str::from_utf8(&self.s[st..self.i]).unwrap();
                t.parse().map(Json::Num).or_else(|_| self.err(&format!("bad number {t:?}")))
            }
            Some(_) => self.err("unexpected character"),
        }
    }
    fn lit(&mut self, w: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            self.err("bad literal")
        }
    }
    fn string(&mut self) -> Result<String, String> {
        self.i += 1;
        let mut bytes = Vec::new();
        loop {
            let Some(&c) = self.s.get(self.i) else { return self.err("unterminated string") };
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(bytes).map_err(|e| e.to_string()),
                b'\\' => {
                    let e = self.s.get(self.i).copied();
                    self.i += 1;
                    let ch = match e {
                        Some(b'n') => '\n',
                        Some(b't') => '\t',
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'u') => {
                            let hex = std::str::from_utf8(self.s.get(self.i..self.i + 4).unwrap_or(b"")).unwrap_or("");
                            self.i += 4;
                            u32::from_str_radix(hex, 16).ok().and_then(char::from_u32).ok_or(format!("bad \\u escape {hex:?}"))?
                        }
                        _ => return self.err("bad escape"),
                    };
                    let mut buf = [0; 4];
                    bytes.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                _ => bytes.push(c),
            }
        }
    }
}

fn parse(s: &str) -> Result<Json, String> {
    let mut p = P { s: s.as_bytes(), i: 0 };
    let v = p.value()?;
    p.ws();
    if p.i != s.len() { p.err("trailing characters") } else { Ok(v) }
}

fn quote(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn write(v: &Json, indent: Option<usize>, depth: usize, o: &mut String) {
    let nl = |o: &mut String, d: usize| {
        if let Some(n) = indent {
            o.push('\n');
            o.push_str(&" ".repeat(n * d));
        }
    };
    match v {
        Json::Null => o.push_str("null"),
        Json::Bool(b) => o.push_str(if *b { "true" } else { "false" }),
        Json::Num(n) => o.push_str(&n.to_string()),
        Json::Str(s) => o.push_str(&quote(s)),
        Json::Arr(a) if a.is_empty() => o.push_str("[]"),
        Json::Obj(m) if m.is_empty() => o.push_str("{}"),
        Json::Arr(a) => {
            o.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    o.push(',');
                }
                nl(o, depth + 1);
                write(x, indent, depth + 1, o);
            }
            nl(o, depth);
            o.push(']');
        }
        Json::Obj(m) => {
            o.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    o.push(',');
                }
                nl(o, depth + 1);
                o.push_str(&quote(k));
                o.push_str(if indent.is_some() { ": " } else { ":" });
                write(x, indent, depth + 1, o);
            }
            nl(o, depth);
            o.push('}');
        }
    }
}

fn get<'a>(v: &'a Json, path: &str) -> Option<&'a Json> {
    path.split('.').filter(|p| !p.is_empty()).try_fold(v, |cur, part| match cur {
        Json::Obj(m) => m.iter().find(|(k, _)| k == part).map(|(_, x)| x),
        Json::Arr(a) => a.get(part.parse::<usize>().ok()?),
        _ => None,
    })
}

fn main() {
    let src = r#" {"name": "Widget \"Pro\"", "id": 1234, "price": 19.99, "tags": ["a", "b\n", "\u00e9\u4e2d"],
        "dims": {"w": 2.5e1, "h": -3, "deep": {"x": [1, [2, [3, []]], {}], "ok": true, "none": null}},
        "empty": "", "big": 1e300, "small": 1.5e-7} "#;
    let v = parse(src).unwrap();
    let mut compact = String::new();
    write(&v, None, 0, &mut compact);
    println!("{compact}");
    let mut pretty = String::new();
    write(&v, Some(2), 0, &mut pretty);
    println!("{pretty}");
    println!("round trip {}", parse(&compact).as_ref() == Ok(&v) && parse(&pretty).as_ref() == Ok(&v));
    for path in ["name", "dims.deep.x.1.1.0", "tags.2", "dims.h", "dims.nope", "tags.9"] {
        println!("{path}: {:?}", get(&v, path));
    }
    for bad in ["[1, 2", "{\"a\" 1}", "[1,]", "tru", "\"abc", "{} x", "[\"\\q\"]", "-", "[\"\\u12\"]"] {
        println!("{bad:?}: {:?}", parse(bad));
    }
}
