//! Recursive descent over the token list, with every limit checked before the work it
//! bounds: bytes before tokenizing, depth before each nested descent, nodes as they are
//! built. Flat `&&`/`||` chains and runs of `!` are loops, so only nesting that the
//! depth limit counts can recurse.

use crate::ast::{Expr, Function, Literal, Method, Path, Scope};
use crate::error::{ErrorKind, ParseError};
use crate::forbidden::find_forbidden;
use crate::lexer::{shorten, tokenize, Tok, Token};
use crate::{Limits, HARD_MAX_DEPTH};

/// Parses with [`Limits::default`].
pub fn parse(src: &str) -> Result<Expr, ParseError> {
    parse_with_limits(src, &Limits::default())
}

/// Parses `src` into an expression that is a condition (true or false), or says why not.
pub fn parse_with_limits(src: &str, limits: &Limits) -> Result<Expr, ParseError> {
    if src.len() > limits.max_bytes {
        return Err(ParseError::new(
            ErrorKind::TooLarge {
                len: src.len(),
                max: limits.max_bytes,
            },
            limits.max_bytes,
            format!(
                "the expression is {} bytes, over the limit of {} bytes",
                src.len(),
                limits.max_bytes
            ),
        ));
    }
    if let Some((at, token)) = find_forbidden(src) {
        return Err(ParseError::new(
            ErrorKind::Forbidden { token },
            at,
            format!("'{token}' is forbidden in a verify expression"),
        ));
    }
    let tokens = tokenize(src)?;
    let mut parser = Parser {
        tokens,
        scratch: String::new(),
        pos: 0,
        depth: 0,
        nodes: 0,
        max_depth: limits.max_depth.min(HARD_MAX_DEPTH),
        max_nodes: limits.max_nodes,
    };
    let start = parser.peek().start;
    let expr = parser.parse_or()?;
    if parser.peek().tok != Tok::Eof {
        let found = parser.peek();
        let message = if is_comparison(&found.tok) {
            "comparisons cannot be chained: join them with && (e.g. a < b && b < c)".to_string()
        } else {
            format!(
                "expected an operator (== != < <= > >= && ||) or the end, found {}",
                found.tok.describe()
            )
        };
        return Err(ParseError::syntax(found.start, message));
    }
    require_condition(
        &expr,
        start,
        "the expression must be a condition (true or false)",
    )?;
    Ok(expr)
}

fn is_comparison(tok: &Tok<'_>) -> bool {
    matches!(
        tok,
        Tok::EqEq | Tok::NotEq | Tok::Gt | Tok::Ge | Tok::Lt | Tok::Le
    )
}

/// Refuses the whole expression unless it always yields true or false. A bare path is
/// refused too: at the top it is far more often a mistake (`compose.draft_id` meant as
/// "exists") than a boolean key, and the fix (`== true`) is short.
fn require_condition(e: &Expr, at: usize, role: &str) -> Result<(), ParseError> {
    if e.is_condition() {
        return Ok(());
    }
    refuse_value(e, at, role)
}

/// Refuses an operand of `&&`, `||` or `!` that can never be true or false. A path
/// passes (`!compose.is_open`): whether it holds a boolean is known only at run time,
/// where anything else makes the operand false, with the reason.
fn reject_non_condition(e: &Expr, at: usize, role: &str) -> Result<(), ParseError> {
    if e.is_condition() || matches!(e, Expr::Path(_)) {
        return Ok(());
    }
    refuse_value(e, at, role)
}

fn refuse_value(e: &Expr, at: usize, role: &str) -> Result<(), ParseError> {
    let text = e.to_string();
    let text = shorten(&text);
    let what = match e {
        Expr::Path(_) => format!("`{text}` is a value: compare it, e.g. `{text} == true`"),
        Expr::Call(..) | Expr::Length(_) => {
            format!("`{text}` is a number: compare it, e.g. `{text} > 0`")
        }
        Expr::Literal(Literal::Null) => "`null` is not a condition".to_string(),
        Expr::Literal(Literal::Str(_)) => format!("the string {text} is not a condition"),
        _ => format!("the number {text} is not a condition"),
    };
    Err(ParseError::new(
        ErrorKind::NotACondition,
        at,
        format!("{role}, but {what}"),
    ))
}

struct Parser<'s> {
    tokens: Vec<Token<'s>>,
    /// Where a path's key is assembled before it is copied into its [`Path`].
    scratch: String,
    pos: usize,
    depth: usize,
    nodes: usize,
    max_depth: usize,
    max_nodes: usize,
}

impl<'s> Parser<'s> {
    fn peek(&self) -> &Token<'s> {
        // The list always ends with Eof and the parser never steps past it.
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn peek_at(&self, ahead: usize) -> &Token<'s> {
        &self.tokens[(self.pos + ahead).min(self.tokens.len() - 1)]
    }

    fn advance(&mut self) -> Token<'s> {
        let token = self.peek().clone();
        if token.tok != Tok::Eof {
            self.pos += 1;
        }
        token
    }

    /// End of the previous token: `.` and `[` must touch it.
    fn previous_end(&self) -> usize {
        self.pos.checked_sub(1).map_or(0, |i| self.tokens[i].end)
    }

    /// "after '&&'" for messages, naming the token before the current one.
    fn after_previous(&self) -> String {
        match self.pos.checked_sub(1) {
            Some(i) => match &self.tokens[i].tok {
                Tok::Ident(name) => format!(" after '{}'", shorten(name)),
                Tok::Str(_) | Tok::Int(_) | Tok::Float(_) => " after a value".to_string(),
                other => format!(" after '{}'", other.symbol()),
            },
            None => String::new(),
        }
    }

    fn node(&mut self) -> Result<(), ParseError> {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return Err(ParseError::new(
                ErrorKind::TooManyNodes {
                    max: self.max_nodes,
                },
                self.peek().start,
                format!(
                    "the expression has more than {} parts; split it or simplify it",
                    self.max_nodes
                ),
            ));
        }
        Ok(())
    }

    /// One level deeper, refused past the limit before anything recurses.
    fn enter(&mut self, at: usize) -> Result<(), ParseError> {
        if self.depth >= self.max_depth {
            return Err(ParseError::new(
                ErrorKind::TooDeep {
                    max: self.max_depth,
                },
                at,
                format!(
                    "nested deeper than {} levels (parentheses, '!', calls and methods count)",
                    self.max_depth
                ),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    /// Consumes a `)`; `what` (e.g. `includes(`) names what it closes in the error.
    fn expect_close(
        &mut self,
        what: impl std::fmt::Display,
        opened_at: usize,
    ) -> Result<(), ParseError> {
        let token = self.peek();
        if token.tok == Tok::RParen {
            self.advance();
            return Ok(());
        }
        Err(ParseError::syntax(
            token.start,
            format!(
                "expected ')' to close {what} at byte {opened_at}, found {}",
                token.tok.describe()
            ),
        ))
    }

    fn parse_or(&mut self) -> Result<Expr, ParseError> {
        self.parse_chain(Tok::OrOr)
    }

    /// `operand (op operand)*` for `||` (operands are `&&` chains) and `&&` (operands
    /// are comparisons): a loop, however long the chain.
    fn parse_chain(&mut self, op: Tok<'static>) -> Result<Expr, ParseError> {
        let operand = |p: &mut Self| {
            if op == Tok::OrOr {
                p.parse_chain(Tok::AndAnd)
            } else {
                p.parse_comparison()
            }
        };
        let first_start = self.peek().start;
        let first = operand(self)?;
        if self.peek().tok != op {
            return Ok(first);
        }
        let role = if op == Tok::OrOr {
            "each side of '||' must be a condition"
        } else {
            "each side of '&&' must be a condition"
        };
        reject_non_condition(&first, first_start, role)?;
        let mut items = Vec::with_capacity(4);
        items.push(first);
        while self.peek().tok == op {
            self.advance();
            let start = self.peek().start;
            let item = operand(self)?;
            reject_non_condition(&item, start, role)?;
            items.push(item);
        }
        self.node()?;
        Ok(if op == Tok::OrOr {
            Expr::Or(items)
        } else {
            Expr::And(items)
        })
    }

    fn parse_comparison(&mut self) -> Result<Expr, ParseError> {
        let lhs = self.parse_unary()?;
        let op = match self.peek().tok {
            Tok::EqEq => crate::CompareOp::Eq,
            Tok::NotEq => crate::CompareOp::Ne,
            Tok::Gt => crate::CompareOp::Gt,
            Tok::Ge => crate::CompareOp::Ge,
            Tok::Lt => crate::CompareOp::Lt,
            Tok::Le => crate::CompareOp::Le,
            _ => return Ok(lhs),
        };
        self.advance();
        let rhs = self.parse_unary()?;
        if is_comparison(&self.peek().tok) {
            return Err(ParseError::syntax(
                self.peek().start,
                "comparisons cannot be chained: join them with && (e.g. a < b && b < c)",
            ));
        }
        self.node()?;
        Ok(Expr::Compare {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        })
    }

    /// `!* postfix`, the run of `!` read in a loop.
    fn parse_unary(&mut self) -> Result<Expr, ParseError> {
        let mut bangs = 0;
        while self.peek().tok == Tok::Bang {
            let at = self.peek().start;
            if let Err(e) = self.enter(at) {
                self.depth -= bangs;
                return Err(e);
            }
            bangs += 1;
            self.advance();
        }
        let start = self.peek().start;
        let result = self.parse_postfix().and_then(|operand| {
            if bangs > 0 {
                reject_non_condition(&operand, start, "'!' must be followed by a condition")?;
            }
            let mut e = operand;
            for _ in 0..bangs {
                self.node()?;
                e = Expr::Not(Box::new(e));
            }
            Ok(e)
        });
        self.depth -= bangs;
        result
    }

    /// A primary then any `.length` / `.method(arg)`; each counts one level of depth.
    fn parse_postfix(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.parse_primary()?;
        let entered_before = self.depth;
        let result = self.parse_postfix_tail(&mut e);
        self.depth = entered_before;
        result.map(|()| e)
    }

    fn parse_postfix_tail(&mut self, e: &mut Expr) -> Result<(), ParseError> {
        loop {
            let token = self.peek();
            match token.tok {
                Tok::Dot | Tok::LBracket if token.start != self.previous_end() => {
                    return Err(ParseError::syntax(
                        token.start,
                        format!("unexpected space before '{}'", token.tok.symbol()),
                    ))
                }
                Tok::Dot => {}
                Tok::LBracket => {
                    return Err(ParseError::syntax(
                        token.start,
                        "'[N]' can only follow a name in a path",
                    ))
                }
                _ => return Ok(()),
            }
            let dot_end = token.end;
            let name_token = self.peek_at(1);
            let name = match name_token.tok {
                Tok::Ident(name) if name_token.start == dot_end => name,
                Tok::Ident(_) => {
                    return Err(ParseError::syntax(name_token.start, "unexpected space after '.'"))
                }
                _ => {
                    return Err(ParseError::syntax(
                        name_token.start,
                        format!(
                            "expected includes(...), startsWith(...), endsWith(...) or length right after '.', found {}",
                            name_token.tok.describe()
                        ),
                    ))
                }
            };
            let name_at = name_token.start;
            let followed_by_paren = self.peek_at(2).tok == Tok::LParen;
            if name == "length" {
                if followed_by_paren {
                    return Err(ParseError::syntax(
                        name_at,
                        "length is a property, not a method: write x.length without ()",
                    ));
                }
                self.enter(name_at)?;
                self.advance();
                self.advance();
                self.node()?;
                *e = Expr::Length(Box::new(std::mem::replace(e, Expr::Literal(Literal::Null))));
                continue;
            }
            let method = match Method::from_name(name) {
                Some(method) if followed_by_paren => method,
                _ => {
                    return Err(ParseError::syntax(
                        name_at,
                        format!(
                            "expected includes(...), startsWith(...), endsWith(...) or length after '.', found '{}'",
                            shorten(name)
                        ),
                    ))
                }
            };
            self.enter(name_at)?;
            self.advance();
            self.advance();
            let open_at = self.advance().start;
            if self.peek().tok == Tok::RParen {
                return Err(ParseError::syntax(
                    self.peek().start,
                    format!(
                        "{}() takes one argument, e.g. {}('text')",
                        method.name(),
                        method.name()
                    ),
                ));
            }
            let argument = self.parse_or()?;
            self.expect_close(format_args!("{}(", method.name()), open_at)?;
            self.node()?;
            let receiver = std::mem::replace(e, Expr::Literal(Literal::Null));
            *e = Expr::Method {
                receiver: Box::new(receiver),
                method,
                argument: Box::new(argument),
            };
        }
    }

    fn expected_value(&self) -> ParseError {
        let token = self.peek();
        ParseError::syntax(
            token.start,
            format!(
                "expected a value (path, number, string, true/false/null){}, found {}",
                self.after_previous(),
                token.tok.describe()
            ),
        )
    }

    fn parse_primary(&mut self) -> Result<Expr, ParseError> {
        let token = self.peek().clone();
        let literal = match token.tok {
            Tok::Int(n) => Literal::Int(n),
            Tok::Float(x) => Literal::Float(x),
            Tok::Str(s) => Literal::Str(s.into_owned()),
            Tok::Ident("true") => Literal::Bool(true),
            Tok::Ident("false") => Literal::Bool(false),
            Tok::Ident("null") => Literal::Null,
            Tok::LParen => {
                self.enter(token.start)?;
                self.advance();
                let inner = self.parse_or()?;
                self.expect_close("the '('", token.start)?;
                self.depth -= 1;
                return Ok(inner);
            }
            Tok::Ident(name) if self.peek_at(1).tok == Tok::LParen => {
                return self.parse_call(name, token.start)
            }
            Tok::Ident(_) => {
                let path = self.parse_path()?;
                self.node()?;
                return Ok(Expr::Path(path));
            }
            _ => return Err(self.expected_value()),
        };
        self.advance();
        self.node()?;
        Ok(Expr::Literal(literal))
    }

    fn parse_call(&mut self, name: &str, at: usize) -> Result<Expr, ParseError> {
        let Some(function) = Function::from_name(name) else {
            return Err(ParseError::syntax(
                at,
                format!(
                    "unknown function '{}': the functions are changed(path), exists(path) and len(path)",
                    shorten(name)
                ),
            ));
        };
        self.enter(at)?;
        self.advance();
        let open_at = self.advance().start;
        let arg = self.peek().clone();
        let path = match arg.tok {
            Tok::Ident(word) if !matches!(word, "true" | "false" | "null") => self.parse_path()?,
            _ => {
                return Err(ParseError::syntax(
                    arg.start,
                    format!(
                        "{name}() takes a path, e.g. {name}(inbox.unread_count); found {}",
                        arg.tok.describe()
                    ),
                ))
            }
        };
        if function == Function::Changed && path.scope() == Scope::Prev {
            return Err(ParseError::syntax(
                arg.start,
                "changed() already compares with the previous state: write changed(path) without prev.",
            ));
        }
        if self.peek().tok == Tok::Dot {
            return Err(ParseError::syntax(
                self.peek().start,
                format!(
                    "{name}() takes a path, not a computed value; compare lengths with prev.x.length != x.length"
                ),
            ));
        }
        self.expect_close(format_args!("{name}("), open_at)?;
        self.depth -= 1;
        self.node()?;
        Ok(Expr::Call(function, path))
    }

    fn finish_path(&mut self, scope: Scope, key: String) -> Path {
        let path = Path::from_key(scope, &key);
        self.scratch = key;
        path
    }

    /// `name (.name | [N])*` or `prev.name ...`, stopping before a method call or a
    /// final `.length`. The key is built in canonical form as it is read.
    fn parse_path(&mut self) -> Result<Path, ParseError> {
        let head = self.advance();
        let Tok::Ident(mut name) = head.tok else {
            return Err(ParseError::syntax(head.start, "expected a path"));
        };
        let mut scope = Scope::Current;
        if name == "prev" {
            scope = Scope::Prev;
            let dot = self.peek().clone();
            let next = self.peek_at(1).clone();
            match (&dot.tok, &next.tok) {
                (Tok::Dot, Tok::Ident(field)) if dot.start == head.end && next.start == dot.end => {
                    name = field;
                    self.advance();
                    self.advance();
                }
                _ => {
                    return Err(ParseError::syntax(
                        dot.start,
                        "prev must be followed by '.' and a path, e.g. prev.inbox.unread_count",
                    ))
                }
            }
        }
        let mut key = std::mem::take(&mut self.scratch);
        key.clear();
        key.push_str(name);
        loop {
            let token = self.peek();
            let adjacent = token.start == self.previous_end();
            match token.tok {
                Tok::Dot | Tok::LBracket if !adjacent => {
                    return Err(ParseError::syntax(
                        token.start,
                        format!("unexpected space before '{}' in a path", token.tok.symbol()),
                    ))
                }
                Tok::Dot => {
                    let dot_end = token.end;
                    let next = self.peek_at(1);
                    let field = match next.tok {
                        Tok::Ident(field) if next.start == dot_end => field,
                        Tok::Ident(_) => {
                            return Err(ParseError::syntax(
                                next.start,
                                "unexpected space after '.' in a path",
                            ))
                        }
                        _ => {
                            return Err(ParseError::syntax(
                                next.start,
                                format!(
                                    "expected a name right after '.', found {}",
                                    next.tok.describe()
                                ),
                            ))
                        }
                    };
                    let field_end = next.end;
                    let after = self.peek_at(2);
                    if after.tok == Tok::LParen {
                        if Method::from_name(field).is_some() {
                            return Ok(self.finish_path(scope, key));
                        }
                        if field != "length" {
                            return Err(ParseError::syntax(
                                next.start,
                                format!(
                                    "unknown method '{}': the methods are includes, startsWith and endsWith",
                                    shorten(field)
                                ),
                            ));
                        }
                    }
                    let continues =
                        matches!(after.tok, Tok::Dot | Tok::LBracket) && after.start == field_end;
                    if field == "length" && !continues {
                        return Ok(self.finish_path(scope, key));
                    }
                    self.advance();
                    self.advance();
                    key.push('.');
                    key.push_str(field);
                }
                Tok::LBracket => {
                    let open_at = token.start;
                    self.advance();
                    let index = self.advance();
                    let n = match index.tok {
                        Tok::Int(n) if n >= 0 => n,
                        _ => {
                            return Err(ParseError::syntax(
                                index.start,
                                format!(
                                "expected an index (a whole number from 0) inside '[ ]', found {}",
                                index.tok.describe()
                            ),
                            ))
                        }
                    };
                    let close = self.advance();
                    if close.tok != Tok::RBracket {
                        return Err(ParseError::syntax(
                            close.start,
                            format!(
                                "expected ']' to close the '[' at byte {open_at}, found {}",
                                close.tok.describe()
                            ),
                        ));
                    }
                    use std::fmt::Write as _;
                    let _ = write!(key, "[{n}]");
                }
                _ => return Ok(self.finish_path(scope, key)),
            }
        }
    }
}
