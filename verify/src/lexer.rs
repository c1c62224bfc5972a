//! Turns source text into tokens with byte spans. Strings are unescaped here; numbers
//! are read with their sign, since the language has no arithmetic.

use std::borrow::Cow;

use crate::ast::{is_identifier_continue, is_identifier_start};
use crate::error::ParseError;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok<'s> {
    Ident(&'s str),
    Int(i64),
    Float(f64),
    Str(Cow<'s, str>),
    LParen,
    RParen,
    LBracket,
    RBracket,
    Dot,
    Comma,
    EqEq,
    NotEq,
    Gt,
    Ge,
    Lt,
    Le,
    AndAnd,
    OrOr,
    Bang,
    Eof,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token<'s> {
    pub tok: Tok<'s>,
    pub start: usize,
    pub end: usize,
}

/// Longest text of a token quoted in an error message.
const QUOTE_MAX_CHARS: usize = 40;

impl Tok<'_> {
    /// The token in words, for "found ..." in error messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(name) => format!("the name '{}'", shorten(name)),
            Tok::Int(n) => format!("the number {n}"),
            Tok::Float(x) => format!("the number {x:?}"),
            Tok::Str(s) => format!("the string \"{}\"", shorten(s)),
            Tok::Eof => "the end of the expression".to_string(),
            other => format!("'{}'", other.symbol()),
        }
    }

    /// Source text of a punctuation token.
    pub fn symbol(&self) -> &'static str {
        match self {
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::Dot => ".",
            Tok::Comma => ",",
            Tok::EqEq => "==",
            Tok::NotEq => "!=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::AndAnd => "&&",
            Tok::OrOr => "||",
            Tok::Bang => "!",
            Tok::Ident(_) | Tok::Int(_) | Tok::Float(_) | Tok::Str(_) | Tok::Eof => "",
        }
    }
}

pub(crate) fn shorten(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(QUOTE_MAX_CHARS) {
        Some((cut, _)) => Cow::Owned(format!("{}…", &s[..cut])),
        None => Cow::Borrowed(s),
    }
}

/// Tokenizes all of `src`; the last token is always `Eof`.
pub(crate) fn tokenize(src: &str) -> Result<Vec<Token<'_>>, ParseError> {
    let mut lexer = Lexer { src, pos: 0 };
    let mut tokens = Vec::with_capacity(src.len() / 3 + 2);
    loop {
        let token = lexer.next_token()?;
        let done = token.tok == Tok::Eof;
        tokens.push(token);
        if done {
            return Ok(tokens);
        }
    }
}

struct Lexer<'s> {
    src: &'s str,
    pos: usize,
}

impl<'s> Lexer<'s> {
    fn peek_char(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn byte_at(&self, i: usize) -> Option<u8> {
        self.src.as_bytes().get(i).copied()
    }

    fn next_token(&mut self) -> Result<Token<'s>, ParseError> {
        let rest = &self.src[self.pos..];
        let trimmed = rest.trim_start();
        self.pos += rest.len() - trimmed.len();
        let start = self.pos;
        let Some(c) = self.peek_char() else {
            return Ok(Token {
                tok: Tok::Eof,
                start,
                end: start,
            });
        };
        let two = |second: u8| self.byte_at(start + 1) == Some(second);
        let (tok, len) = match c {
            '(' => (Tok::LParen, 1),
            ')' => (Tok::RParen, 1),
            '[' => (Tok::LBracket, 1),
            ']' => (Tok::RBracket, 1),
            '.' => (Tok::Dot, 1),
            ',' => (Tok::Comma, 1),
            '=' if two(b'=') => (Tok::EqEq, 2),
            '!' if two(b'=') => (Tok::NotEq, 2),
            '>' if two(b'=') => (Tok::Ge, 2),
            '<' if two(b'=') => (Tok::Le, 2),
            '&' if two(b'&') => (Tok::AndAnd, 2),
            '|' if two(b'|') => (Tok::OrOr, 2),
            '!' => (Tok::Bang, 1),
            '>' => (Tok::Gt, 1),
            '<' => (Tok::Lt, 1),
            '=' => {
                return Err(ParseError::syntax(
                    start,
                    "a single '=' is not an operator: write '==' to compare",
                ))
            }
            '&' => {
                return Err(ParseError::syntax(
                    start,
                    "expected '&&', found a single '&'",
                ))
            }
            '|' => {
                return Err(ParseError::syntax(
                    start,
                    "expected '||', found a single '|'",
                ))
            }
            '\'' | '"' => return self.string(c),
            '-' | '0'..='9' => return self.number(),
            c if is_identifier_start(c) => {
                let end = rest_end(self.src, start, is_identifier_continue);
                self.pos = end;
                return Ok(Token {
                    tok: Tok::Ident(&self.src[start..end]),
                    start,
                    end,
                });
            }
            '\\' => {
                return Err(ParseError::syntax(
                    start,
                    "unexpected '\\': escapes are only allowed inside strings",
                ))
            }
            '+' | '*' | '/' | '%' => {
                return Err(ParseError::syntax(
                    start,
                    format!("unexpected '{c}': this language has no arithmetic"),
                ))
            }
            other => {
                return Err(ParseError::syntax(
                    start,
                    format!("unexpected character {other:?}"),
                ))
            }
        };
        self.pos = start + len;
        Ok(Token {
            tok,
            start,
            end: self.pos,
        })
    }

    fn number(&mut self) -> Result<Token<'s>, ParseError> {
        let start = self.pos;
        let bytes = self.src.as_bytes();
        let digits_from = |mut i: usize| {
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        let mut i = start;
        if bytes[i] == b'-' {
            i += 1;
            if !bytes.get(i).is_some_and(u8::is_ascii_digit) {
                return Err(ParseError::syntax(
                    start,
                    "expected a digit after '-': only numbers can be negative, and there is no subtraction",
                ));
            }
        }
        i = digits_from(i);
        let mut is_float = false;
        if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
            is_float = true;
            i = digits_from(i + 1);
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(bytes.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            if !bytes.get(j).is_some_and(u8::is_ascii_digit) {
                return Err(ParseError::syntax(
                    j,
                    "expected the digits of the exponent after 'e'",
                ));
            }
            is_float = true;
            i = digits_from(j);
        }
        if self.src[i..]
            .chars()
            .next()
            .is_some_and(is_identifier_start)
        {
            return Err(ParseError::syntax(
                i,
                "a number cannot be followed directly by a letter",
            ));
        }
        let text = &self.src[start..i];
        self.pos = i;
        let integer = if is_float {
            None
        } else {
            text.parse::<i64>().ok()
        };
        let tok = match integer {
            Some(n) => Tok::Int(n),
            // Integers beyond i64 become floats, as they would in JSON or JavaScript.
            None => match text.parse::<f64>() {
                Ok(x) if x.is_finite() => Tok::Float(x),
                _ => {
                    return Err(ParseError::syntax(
                        start,
                        format!("the number {text} is out of range"),
                    ))
                }
            },
        };
        Ok(Token { tok, start, end: i })
    }

    /// Reads a string quoted with `quote`. Escapes: `\\ \' \" \n \t \r`, `\u{X..}`
    /// (1 to 6 hex digits) and `\uXXXX` (surrogate pairs combined).
    fn string(&mut self, quote: char) -> Result<Token<'s>, ParseError> {
        let start = self.pos;
        let body_start = start + 1;
        let mut owned: Option<String> = None;
        let mut i = body_start;
        loop {
            let Some(c) = self.src[i..].chars().next() else {
                return Err(ParseError::syntax(
                    i,
                    format!(
                        "expected {quote} to close the string that starts at byte {start}, found the end of the expression"
                    ),
                ));
            };
            if c == quote {
                let value = match owned {
                    Some(s) => Cow::Owned(s),
                    None => Cow::Borrowed(&self.src[body_start..i]),
                };
                self.pos = i + 1;
                return Ok(Token {
                    tok: Tok::Str(value),
                    start,
                    end: self.pos,
                });
            }
            if c != '\\' {
                if let Some(s) = owned.as_mut() {
                    s.push(c);
                }
                i += c.len_utf8();
                continue;
            }
            let s = owned.get_or_insert_with(|| self.src[body_start..i].to_string());
            let (decoded, next) = self.escape(i)?;
            s.push(decoded);
            i = next;
        }
    }

    /// Decodes the escape starting with the backslash at `at`; returns the char and
    /// the byte after the escape.
    fn escape(&self, at: usize) -> Result<(char, usize), ParseError> {
        let Some(kind) = self.src[at + 1..].chars().next() else {
            return Err(ParseError::syntax(
                at,
                "a string cannot end with a lone '\\'",
            ));
        };
        let simple = match kind {
            '\\' => Some('\\'),
            '\'' => Some('\''),
            '"' => Some('"'),
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            _ => None,
        };
        if let Some(c) = simple {
            return Ok((c, at + 2));
        }
        if kind != 'u' {
            return Err(ParseError::syntax(
                at,
                format!(
                    "unknown escape '\\{kind}': the escapes are \\\\ \\' \\\" \\n \\t \\r \\u{{hex}} and \\uXXXX"
                ),
            ));
        }
        if self.byte_at(at + 2) == Some(b'{') {
            let digits_start = at + 3;
            let digits_end = rest_end(self.src, digits_start, |c| c.is_ascii_hexdigit());
            let count = digits_end - digits_start;
            if self.byte_at(digits_end) != Some(b'}') || !(1..=6).contains(&count) {
                return Err(ParseError::syntax(
                    at,
                    "expected 1 to 6 hex digits then '}' in a \\u{...} escape",
                ));
            }
            let code =
                u32::from_str_radix(&self.src[digits_start..digits_end], 16).unwrap_or(u32::MAX);
            return match char::from_u32(code) {
                Some(c) => Ok((c, digits_end + 1)),
                None => Err(ParseError::syntax(
                    at,
                    format!("\\u{{{:x}}} is not a Unicode scalar value", code),
                )),
            };
        }
        let high = self.hex4(at)?;
        if !(0xD800..0xDC00).contains(&high) {
            return match char::from_u32(high) {
                Some(c) => Ok((c, at + 6)),
                None => Err(ParseError::syntax(
                    at,
                    "a low surrogate \\uDC00-\\uDFFF must follow a high surrogate",
                )),
            };
        }
        let low_at = at + 6;
        let low = if self.src[low_at..].starts_with("\\u") {
            self.hex4(low_at)?
        } else {
            0
        };
        if !(0xDC00..0xE000).contains(&low) {
            return Err(ParseError::syntax(
                at,
                "a high surrogate \\uD800-\\uDBFF must be followed by a low surrogate \\uDC00-\\uDFFF",
            ));
        }
        let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
        match char::from_u32(code) {
            Some(c) => Ok((c, low_at + 6)),
            None => Err(ParseError::syntax(at, "invalid surrogate pair")),
        }
    }

    /// The four hex digits of a `\uXXXX` escape whose backslash is at `at`.
    fn hex4(&self, at: usize) -> Result<u32, ParseError> {
        let digits = self
            .src
            .get(at + 2..at + 6)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()));
        match digits {
            Some(d) => Ok(u32::from_str_radix(d, 16).unwrap_or(u32::MAX)),
            None => Err(ParseError::syntax(
                at,
                "expected 4 hex digits after \\u (or \\u{...})",
            )),
        }
    }
}

/// First byte at or after `from` whose char does not satisfy `keep`.
fn rest_end(src: &str, from: usize, keep: impl Fn(char) -> bool) -> usize {
    src[from..]
        .char_indices()
        .find(|&(_, c)| !keep(c))
        .map_or(src.len(), |(i, _)| from + i)
}
