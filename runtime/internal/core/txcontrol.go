package core

import (
	"fmt"
	"strings"
)

// Transaction control through the handed-out transaction
//
// Taking Commit and Rollback away from the business function is not
// enough: tx.Exec(ctx, "COMMIT") ends the executor's transaction on the
// server all the same, the business changes commit without their record,
// the executor's own commit then fails and the client is told the
// operation rolled back, and its retry finds the entity it was told does
// not exist (one key, two answers). So every statement text the business
// function sends through the transaction is read first, and one that ends
// or starts a transaction is refused before it reaches the server:
// COMMIT, END, ABORT, ROLLBACK (but ROLLBACK TO a savepoint), BEGIN, START
// TRANSACTION and PREPARE TRANSACTION, in any case, after white space,
// comments and empty statements, and in any statement of a multi-statement
// text. SAVEPOINT, RELEASE and ROLLBACK TO stay allowed, as does tx.Begin,
// whose savepoints pgx issues itself. tx.Conn() remains a way around, as
// the raw connection always is.

// txControl returns the first statement of sql that ends or starts a
// transaction, as its keywords in upper case, or "".
func txControl(sql string) string {
	for rest := sql; ; {
		first, second, next, ok := statementStart(rest)
		switch {
		case first == "COMMIT", first == "END", first == "ABORT", first == "BEGIN":
			return first
		case first == "ROLLBACK" && second != "TO":
			return first
		case first == "START" && second == "TRANSACTION", first == "PREPARE" && second == "TRANSACTION":
			return first + " " + second
		}
		if !ok {
			return ""
		}
		rest = next
	}
}

// errTxControl is the error of a statement text txControl refuses.
func errTxControl(stmt string) error {
	return fmt.Errorf("%w: %s through the business function's transaction would end or start it; return an error to roll back, use tx.Begin for a savepoint", ErrTxOwnedByExecutor, stmt)
}

// statementStart reads the first two words of the first statement of sql
// (in upper case; "" for a word that is not there) and returns the text
// after the statement, with ok false when there is none.
func statementStart(sql string) (first, second, rest string, ok bool) {
	i := skipSpace(sql, 0)
	for i < len(sql) && sql[i] == ';' {
		i = skipSpace(sql, i+1)
	}
	first, i = word(sql, i)
	second, _ = word(sql, skipSpace(sql, i))
	end := statementEnd(sql, i)
	if end >= len(sql) {
		return first, second, "", false
	}
	return first, second, sql[end+1:], true
}

// skipSpace returns the index of the first byte at or after i that is not
// white space or in a comment.
func skipSpace(sql string, i int) int {
	for i < len(sql) {
		switch {
		case strings.ContainsRune(" \t\n\r\f\v", rune(sql[i])):
			i++
		case strings.HasPrefix(sql[i:], "--"):
			if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				i = len(sql)
			}
		case strings.HasPrefix(sql[i:], "/*"):
			i = blockCommentEnd(sql, i)
		default:
			return i
		}
	}
	return i
}

// blockCommentEnd returns the index just past the comment that starts at
// i; PostgreSQL's block comments nest.
func blockCommentEnd(sql string, i int) int {
	depth := 0
	for i < len(sql) {
		switch {
		case strings.HasPrefix(sql[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(sql[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return i
}

// word reads the identifier or keyword at i, in upper case, and returns
// it with the index after it; "" when none starts at i.
func word(sql string, i int) (string, int) {
	start := i
	for i < len(sql) && (isIdentStart(sql[i]) || i > start && (sql[i] >= '0' && sql[i] <= '9' || sql[i] == '$')) {
		i++
	}
	return strings.ToUpper(sql[start:i]), i
}

// isIdentStart reports whether c may start an identifier.
func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// statementEnd returns the index of the semicolon that ends the statement
// in which i lies, or len(sql): semicolons in string literals, quoted
// identifiers, dollar quotes and comments end nothing.
func statementEnd(sql string, i int) int {
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == ';':
			return i
		case c == '-' && strings.HasPrefix(sql[i:], "--"), c == '/' && strings.HasPrefix(sql[i:], "/*"):
			i = skipSpace(sql, i)
		case c == '\'':
			// An E'…' string takes backslash escapes.
			escapes := i > 0 && (sql[i-1] == 'e' || sql[i-1] == 'E') && (i == 1 || !isIdentByte(sql[i-2]))
			i = quotedEnd(sql, i, '\'', escapes)
		case c == '"':
			i = quotedEnd(sql, i, '"', false)
		case c == '$':
			i = dollarEnd(sql, i)
		case isIdentStart(c):
			_, i = word(sql, i)
		default:
			i++
		}
	}
	return len(sql)
}

// isIdentByte reports whether c may be part of an identifier.
func isIdentByte(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}

// quotedEnd returns the index just past the quoted text that starts at i
// with quote, which a doubled quote (or, with escapes, a backslash) does
// not end.
func quotedEnd(sql string, i int, quote byte, escapes bool) int {
	for i++; i < len(sql); i++ {
		switch {
		case escapes && sql[i] == '\\':
			i++
		case sql[i] == quote && i+1 < len(sql) && sql[i+1] == quote:
			i++
		case sql[i] == quote:
			return i + 1
		}
	}
	return i
}

// dollarEnd returns the index just past the dollar-quoted string that
// starts at i ($$…$$ or $tag$…$tag$), or just past the $ when none does
// (a parameter such as $1).
func dollarEnd(sql string, i int) int {
	j := i + 1
	for j < len(sql) && (isIdentStart(sql[j]) || j > i+1 && sql[j] >= '0' && sql[j] <= '9') {
		j++
	}
	if j >= len(sql) || sql[j] != '$' {
		return i + 1
	}
	tag := sql[i : j+1]
	if k := strings.Index(sql[j+1:], tag); k >= 0 {
		return j + 1 + k + len(tag)
	}
	return len(sql)
}
