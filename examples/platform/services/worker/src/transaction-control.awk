# Prints the first transaction-control statement (BEGIN, COMMIT, ROLLBACK, END, ABORT, SAVEPOINT, RELEASE,
# START TRANSACTION, PREPARE TRANSACTION) PostgreSQL 15 would run at top level of one migration, and its line; prints
# nothing when there is none. It reads the file as PostgreSQL's scanner (src/backend/parser/scan.l) and grammar split
# the query string migrate.sh sends whole, with standard_conforming_strings on: nested /* */ comments, -- comments,
# 'strings' with '' (also N'', B'', X'', U&''), E'strings' with backslash escapes, "identifiers" with "" (also U&""),
# $tag$ dollar quotes, identifiers that contain "$", and the BEGIN ATOMIC ... END body of CREATE FUNCTION|PROCEDURE.
# The toolkit's own check (scripts/lib/pharos/sql-statements.ts) follows the same rules; a test runs both on the same
# migrations against a real server.
BEGIN {
  for (n = 1; n < 128; n++) {
    c = sprintf("%c", n)
    if (c !~ /[A-Za-z0-9_$]/) ascii_other = ascii_other c
  }
}
{ sql = sql $0 "\n" }

function ident_start(c) { return c ~ /^[A-Za-z_]$/ || (c != "" && index(ascii_other, c) == 0 && c !~ /^[0-9$]$/) }
function ident_cont(c) { return c ~ /^[A-Za-z0-9_$]$/ || (c != "" && index(ascii_other, c) == 0) }

# The end (one past) of a quoted run whose opening quote is at i; a doubled quote stands for itself.
function quoted(i, q, backslash,    c) {
  i++
  while (i <= len) {
    c = substr(sql, i, 1)
    if (backslash && c == "\\") i += 2
    else if (c == q && substr(sql, i + 1, 1) == q) i += 2
    else if (c == q) return i + 1
    else i++
  }
  return len + 1
}

function block_comment(i,    depth, two) {
  depth = 0
  i += 2
  while (i <= len) {
    two = substr(sql, i, 2)
    if (two == "/*") { depth++; i += 2 }
    else if (two == "*/") { if (depth == 0) return i + 2; depth--; i += 2 }
    else i++
  }
  return len + 1
}

# A $tag$ delimiter starting at i, or "".
function dollar_delimiter(i,    j, c) {
  j = i + 1
  c = substr(sql, j, 1)
  if (c == "$") return "$$"
  if (!ident_start(c)) return ""
  while (j <= len) {
    j++
    c = substr(sql, j, 1)
    if (c == "$") return substr(sql, i, j - i + 1)
    if (!(ident_cont(c)) || c == "$") return ""
  }
  return ""
}

function statement_ends() {
  if (count > 0 && result == "") {
    if (h1 == "BEGIN" || h1 == "COMMIT" || h1 == "ROLLBACK" || h1 == "END" || h1 == "ABORT" || h1 == "SAVEPOINT" || h1 == "RELEASE") result = h1
    else if ((h1 == "START" || h1 == "PREPARE") && h2 == "TRANSACTION") result = h1 " TRANSACTION"
    if (result != "") result_line = line
  }
  count = 0; h1 = ""; h2 = ""; h3 = ""; h4 = ""; previous = ""
}

function token(t, at,    routine, prefix) {
  if (t == ";" && depth == 0 && body == "none") { statement_ends(); return }
  if (count == 0) { prefix = substr(sql, 1, at - 1); line = 1 + gsub(/\n/, "\n", prefix) }
  count++
  if (count == 1) h1 = t; else if (count == 2) h2 = t; else if (count == 3) h3 = t; else if (count == 4) h4 = t
  routine = h1 == "CREATE" && (h2 == "FUNCTION" || h2 == "PROCEDURE" || (h2 == "OR" && h3 == "REPLACE" && (h4 == "FUNCTION" || h4 == "PROCEDURE")))
  if (t == "(") depth++
  else if (t == ")") { if (depth > 0) depth-- }
  else if (depth == 0 && body == "none" && previous == "BEGIN" && t == "ATOMIC" && routine) body = "start"
  else if (depth == 0 && body != "none") {
    if (t == ";") body = "start"
    else if (t == "END" && body == "start") body = "none"
    else body = "inside"
  }
  previous = t
}

END {
  len = length(sql); i = 1; depth = 0; body = "none"; count = 0; result = ""
  while (i <= len && result == "") {
    c = substr(sql, i, 1); next_c = substr(sql, i + 1, 1); start = i; t = "?"
    if (c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\f") { i++; t = "" }
    else if (c == "-" && next_c == "-") { while (i <= len && substr(sql, i, 1) != "\n" && substr(sql, i, 1) != "\r") i++; t = "" }
    else if (c == "/" && next_c == "*") { i = block_comment(i); t = "" }
    else if (c ~ /^[eE]$/ && next_c == "'") i = quoted(i + 1, "'", 1)
    else if (c ~ /^[bBxXnN]$/ && next_c == "'") i = quoted(i + 1, "'", 0)
    else if (c ~ /^[uU]$/ && next_c == "&" && (substr(sql, i + 2, 1) == "'" || substr(sql, i + 2, 1) == "\"")) i = quoted(i + 2, substr(sql, i + 2, 1), 0)
    else if (c == "'" || c == "\"") i = quoted(i, c, 0)
    else if (c == "$") {
      d = dollar_delimiter(i)
      if (d != "") {
        rest = index(substr(sql, i + length(d)), d)
        i = rest == 0 ? len + 1 : i + length(d) + rest - 1 + length(d)
      } else { i++; while (i <= len && substr(sql, i, 1) ~ /^[0-9]$/) i++ }
    }
    else if (ident_start(c)) { while (i <= len && ident_cont(substr(sql, i, 1))) i++; t = toupper(substr(sql, start, i - start)) }
    else if (c ~ /^[0-9]$/ || (c == "." && next_c ~ /^[0-9]$/)) { while (i <= len && substr(sql, i, 1) ~ /^[0-9.]$/) i++ }
    else { i++; if (c == ";" || c == "(" || c == ")") t = c }
    if (t != "") token(t, start)
  }
  if (result == "") statement_ends()
  if (result != "") print result " " result_line
}
