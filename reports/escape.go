package reports

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// A model, a baseline or a results file is written by whoever opened the
// pull request, and the text reports print its names and prose on a
// terminal and in CI logs: a newline there could start a line of its own
// (a GitHub Actions workflow command such as ::warning, a forged "ok"),
// an ESC byte a terminal sequence, a bidi control reorder what is read.
// Each output kind has one escaper, used by every renderer of that kind:
// Text for a field of a text report, textOut for everything a text
// renderer writes, and mdText/mdCode/mdBlock for Markdown.

// control reports whether r is never written raw: the C0 and C1 controls
// with DEL, the bidirectional controls, the line and paragraph
// separators, the byte order mark, and what is not UTF-8.
func control(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return true
	case r == 0x2028 || r == 0x2029 || r == 0xfeff || r == utf8.RuneError:
		return true
	}
	return false
}

// escapeRune writes r as Go writes it in a quoted string: \n, \x1b,
// \u202e.
func escapeRune(b *strings.Builder, r rune) {
	switch r {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		switch {
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r < 0x100:
			fmt.Fprintf(b, `\x%02x`, r)
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
	}
}

// Text makes s safe as one field of a line of text output: every control
// character, newlines and tabs included, is written escaped (\n, \x1b,
// \u202e), so a field stays on its line and sends nothing to a terminal.
func Text(s string) string {
	if !needsEscape(s, false) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if control(r) {
			escapeRune(&b, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsEscape(s string, layout bool) bool {
	for _, r := range s {
		if control(r) && !(layout && (r == '\n' || r == '\t')) {
			return true
		}
	}
	return false
}

// textWriter is textOut's writer.
type textWriter struct {
	w    io.Writer
	pend []byte // the start of a character split across writes
	bol  bool   // at the beginning of a line
}

// TextOut wraps a text renderer's writer: the renderer's own line breaks
// and tabs pass, any other control character is escaped, and a line that
// would begin with "::" (a workflow command to GitHub Actions) begins
// with a backslash instead. It stands behind Text: whatever a renderer
// prints reaches the terminal or the log without a control byte.
func TextOut(w io.Writer) io.Writer {
	if _, ok := w.(*textWriter); ok {
		return w
	}
	return &textWriter{w: w, bol: true}
}

func (t *textWriter) Write(p []byte) (int, error) {
	data := p
	if len(t.pend) > 0 {
		data = append(t.pend, p...)
		t.pend = nil
	}
	var b strings.Builder
	for i := 0; i < len(data); {
		if !utf8.FullRune(data[i:]) {
			t.pend = append([]byte(nil), data[i:]...)
			break
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, `\x%02x`, data[i])
			i++
			t.bol = false
			continue
		}
		switch {
		case r == '\n':
			b.WriteByte('\n')
			t.bol = true
		case r == '\t' || r == ' ':
			b.WriteRune(r)
		case control(r):
			escapeRune(&b, r)
			t.bol = false
		default:
			if t.bol && r == ':' && bytes.HasPrefix(data[i:], []byte("::")) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
			t.bol = false
		}
		i += n
	}
	if _, err := io.WriteString(t.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// mdEscape writes s for Markdown: control characters escaped as Text
// does (layout keeps line breaks and tabs, for a fenced block), an @ kept
// from starting a mention and a URL from being linked, by a word joiner
// (U+2060) after the @ and inside the scheme's "://" or "www.". esc,
// when set, writes each other rune (markup escaping).
func mdEscape(s string, layout bool, esc func(*strings.Builder, rune)) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case control(r) && !(layout && (r == '\n' || r == '\t')):
			escapeRune(&b, r)
			continue
		case r == '@':
			b.WriteString("@\u2060")
			continue
		case r == ':' && strings.HasPrefix(s[i:], "://"):
			b.WriteString(":\u2060")
			continue
		case r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteString("\u2060")
		}
		if esc != nil {
			esc(&b, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
