// Package docs_test holds the documentation to what the tool does: every
// command line shown in a shell block of README.md and docs/ runs against
// the real CLI and exits as documented, every help text quoted in a
// command's page is the binary's own, and every relative link and anchor
// leads somewhere. The conventions are written in
// docs/reference/exit-codes.md ("In the documentation").
package docs_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardapio/cardapio/internal/testbin"
)

var update = flag.Bool("update", false, "rewrite the help texts quoted in docs/commands from the binary")

var (
	root string // the repository
	bin  string // the directory holding the built cardapio
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(testbin.Main(m, "cardapio-docs-", &root, &bin))
}

// pages are the documents whose commands run and whose links are followed.
func pages(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "bench/README.md", "examples/README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// block is a fenced code block: its language, the line of its first body
// line, its body lines and the text just before its opening fence.
type block struct {
	lang  string
	line  int
	body  []string
	start int // index of the opening fence in the file's lines
	end   int // index of the closing fence
}

func blocks(lines []string) []block {
	var bs []block
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(fence, "```") {
			continue
		}
		b := block{lang: strings.TrimSpace(strings.TrimPrefix(fence, "```")), line: i + 2, start: i}
		for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
			b.body = append(b.body, lines[i])
		}
		b.end = i
		bs = append(bs, b)
	}
	return bs
}

// command is one command line of a shell block.
type command struct {
	where string // FILE:LINE
	text  string // as run, comment removed
	exit  int    // the exit code the comment documents, 0 when it says none
}

var (
	exitNote = regexp.MustCompile(`\bexit (\d+)\b`)
	// runsCardapio matches a line that runs cardapio: first, or fed by a pipe.
	runsCardapio = regexp.MustCompile(`^(cardapio|go run \./cmd/cardapio)\b|\| *cardapio\b`)
)

// commands returns the cardapio command lines of a page's sh blocks,
// continuation lines joined, with the exit code each comment documents.
func commands(file string, lines []string) []command {
	var cs []command
	for _, b := range blocks(lines) {
		if b.lang != "sh" && b.lang != "bash" {
			continue
		}
		for i := 0; i < len(b.body); i++ {
			at := b.line + i
			text := b.body[i]
			for strings.HasSuffix(strings.TrimSpace(stripComment(text)), `\`) && i+1 < len(b.body) {
				code := strings.TrimSuffix(strings.TrimSpace(stripComment(text)), `\`)
				text = code + " " + strings.TrimSpace(b.body[i+1]) + comment(text)
				i++
			}
			code := strings.Join(strings.Fields(stripComment(text)), " ")
			if !runsCardapio.MatchString(code) {
				continue
			}
			c := command{where: fmt.Sprintf("%s:%d", file, at), text: code}
			if m := exitNote.FindStringSubmatch(comment(text)); m != nil {
				c.exit, _ = strconv.Atoi(m[1])
			}
			cs = append(cs, c)
		}
	}
	return cs
}

// commentAt is the index of a line's shell comment (a # at the start of a
// word, outside quotes), or -1.
func commentAt(s string) int {
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return i
		}
	}
	return -1
}

func stripComment(s string) string {
	if i := commentAt(s); i >= 0 {
		return s[:i]
	}
	return s
}

func comment(s string) string {
	if i := commentAt(s); i >= 0 {
		return " " + s[i:]
	}
	return ""
}

// skipped are the commands shown but not run, by a pattern of their text,
// each with its reason.
var skipped = []struct {
	pattern *regexp.Regexp
	reason  string
}{
	{regexp.MustCompile(`&$`), "runs in the background until stopped"},
	{regexp.MustCompile(`--aws\b`), "needs an AWS account"},
	{regexp.MustCompile(`--endpoint-url\b`), "needs a running server"},
	{regexp.MustCompile(`^(go run \./cmd/)?cardapio serve\b`), "serves until interrupted"},
	{regexp.MustCompile(`^cardapio prices\b.*--out\b`), "reads the AWS Price List: needs AWS credentials"},
	{regexp.MustCompile(`--serve\b.*--addr\b`), "serves until interrupted"},
	{regexp.MustCompile(`^(go run \./cmd/)?cardapio workshop( (\S+\.yaml|--items \d+|--seed \d+|--addr 127\.0\.0\.1:\d+))*$`), "serves until interrupted"},
	{regexp.MustCompile(`--follow\b`), "reads until interrupted"},
	{regexp.MustCompile(`load (\S+\.yaml )?--scenario midnight-0007 --scale 0\.01 --throughput\b`), "the whole night at 1/100: half a minute to minutes, 3 GB"},
	{regexp.MustCompile(`load --scenario payday --scale 0\.01 --population 0\.001 --throughput\b`), "payday at 1/100: a minute or more, most of it loading the population"},
}

func skipReason(c string) string {
	for _, s := range skipped {
		if s.pattern.MatchString(c) {
			return s.reason
		}
	}
	return ""
}

// TestCommands runs every command line of the pages' shell blocks, in
// order, in a copy of the repository, and holds it to its documented exit.
func TestCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documented commands")
	}
	work := copyTree(t)
	ran := map[command]string{} // a command shown on several pages runs once
	for _, file := range pages(t) {
		lines := readLines(t, file)
		for _, c := range commands(file, lines) {
			if why := skipReason(c.text); why != "" {
				t.Logf("%s: not run (%s): %s", c.where, why, c.text)
				continue
			}
			key := command{text: c.text, exit: c.exit}
			if at, ok := ran[key]; ok {
				t.Logf("%s: ran at %s", c.where, at)
				continue
			}
			ran[key] = c.where
			t.Run(c.where, func(t *testing.T) {
				line := strings.Replace(c.text, "go run ./cmd/cardapio", "cardapio", 1)
				runDocumented(t, work, line, c.exit, 90*time.Second)
			})
		}
	}
}

// runDocumented runs a documented command line with sh in the work copy,
// the built binary first on PATH, and holds it to its documented exit.
func runDocumented(t *testing.T, work, line string, exit int, limit time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	err := cmd.Run()
	got := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok || ctx.Err() != nil {
			t.Fatalf("%s: %v", line, err)
		}
		got = ee.ExitCode()
	}
	if got != exit {
		t.Fatalf("%s: exit %d, documented %d\n%s", line, got, exit, tail(out.String()))
	}
	t.Logf("%s (%.1fs)", line, time.Since(began).Seconds())
}

// helpMark introduces a quoted help text: the text block after it is the
// named command's --help.
var helpMark = regexp.MustCompile(`^<!-- help: (cardapio[a-z ]*) -->$`)

// TestHelp holds every help text quoted in the pages to the binary's own.
// With -update it rewrites them.
func TestHelp(t *testing.T) {
	for _, file := range pages(t) {
		lines := readLines(t, file)
		changed := false
		var out []string
		bs := blocks(lines)
		next := 0
		for i := 0; i < len(lines); i++ {
			m := helpMark.FindStringSubmatch(strings.TrimSpace(lines[i]))
			if m == nil {
				out = append(out, lines[i])
				continue
			}
			for next < len(bs) && bs[next].start <= i {
				next++
			}
			if next == len(bs) || bs[next].start != i+1 {
				t.Errorf("%s:%d: %s is not followed by a code block", file, i+1, m[0])
				out = append(out, lines[i])
				continue
			}
			b := bs[next]
			args := append(strings.Fields(m[1])[1:], "--help")
			cmd := exec.Command(filepath.Join(bin, "cardapio"), args...)
			cmd.Dir = root
			help, err := cmd.Output()
			if err != nil {
				t.Errorf("%s:%d: %s --help: %v", file, i+1, m[1], err)
			}
			want := strings.Split(strings.TrimRight(string(help), "\n"), "\n")
			if strings.Join(b.body, "\n") != strings.Join(want, "\n") {
				if !*update {
					t.Errorf("%s:%d: the help quoted differs from `%s --help` (go test ./docs -update rewrites it)", file, i+1, m[1])
				}
				changed = true
			}
			out = append(out, lines[i], lines[b.start])
			out = append(out, want...)
			out = append(out, lines[b.end])
			i = b.end
		}
		if *update && changed {
			if err := os.WriteFile(filepath.Join(root, file), []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

var (
	link    = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*$`)
	notSlug = regexp.MustCompile(`[^\p{L}\p{N}\s_-]`)
	goFile  = regexp.MustCompile("`([a-z_*]+\\.go)`")
)

// TestLinks follows every relative link of the pages: the file must exist
// and an anchor must name one of its headings.
func TestLinks(t *testing.T) {
	anchors := map[string]map[string]bool{}
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		a := map[string]bool{}
		seen := map[string]int{}
		for _, line := range prose(readLines(t, file)) {
			m := heading.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			slug := slug(m[2])
			if n := seen[slug]; n > 0 {
				a[fmt.Sprintf("%s-%d", slug, n)] = true
			} else {
				a[slug] = true
			}
			seen[slug]++
		}
		anchors[file] = a
		return a
	}
	for _, file := range pages(t) {
		lines := prose(readLines(t, file))
		for n, line := range lines {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.ToSlash(filepath.Join(filepath.Dir(file), path))
					if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
						t.Errorf("%s:%d: link to %s: no such file", file, n+1, target)
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[anchor] {
					t.Errorf("%s:%d: link to %s: no heading makes #%s in %s", file, n+1, target, anchor, dest)
				}
			}
		}
	}
}

// slug is the anchor GitHub makes of a heading.
func slug(heading string) string {
	return strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(heading), ""), " ", "-")
}

// prose blanks the lines of code blocks, keeping the line numbers.
func prose(lines []string) []string {
	out := append([]string(nil), lines...)
	for _, b := range blocks(lines) {
		for i := b.start; i <= b.end && i < len(out); i++ {
			out[i] = ""
		}
	}
	return out
}

func readLines(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

// copyTree copies the repository's files (not .git) into a temporary
// directory, so that the commands' outputs land there.
func copyTree(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func tail(s string) string {
	if len(s) > 4000 {
		return "..." + s[len(s)-4000:]
	}
	return s
}

// TestLayout holds the layout of docs/architecture.md to the module's
// packages: each is listed once, and each line names one that exists.
func TestLayout(t *testing.T) {
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		p = strings.TrimPrefix(strings.TrimPrefix(p, "github.com/cardapio/cardapio"), "/")
		if p != "" && p != "docs" && !strings.HasPrefix(p, "bench/") {
			have[p] = true
		}
	}
	listed := map[string]bool{}
	lines := readLines(t, "docs/architecture.md")
	for _, b := range blocks(lines) {
		if len(b.body) == 0 || !strings.HasPrefix(b.body[0], "cmd/cardapio ") {
			continue
		}
		for i, line := range b.body {
			p := strings.Fields(line)[0]
			if !have[p] {
				t.Errorf("docs/architecture.md:%d: %s is not a package of the module", b.line+i, p)
			}
			listed[p] = true
		}
	}
	for p := range have {
		if !listed[p] {
			t.Errorf("docs/architecture.md: package %s is missing from the layout", p)
		}
	}
}

// TestTutorialSteps holds the tutorial's step files to its model: each is
// the whole model cut where a later section begins.
func TestTutorialSteps(t *testing.T) {
	whole, err := os.ReadFile(filepath.Join(root, "docs/tutorial/clinic.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := filepath.Glob(filepath.Join(root, "docs/tutorial/steps/*.yaml"))
	if err != nil || len(steps) == 0 {
		t.Fatalf("no steps: %v", err)
	}
	for _, s := range steps {
		part, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(whole, part) {
			t.Errorf("%s is not the start of docs/tutorial/clinic.yaml: cut it again from the whole model", s)
		}
	}
}

// TestContents holds a page's table of contents (the links to its own
// headings before its first section) to its sections: each is listed.
func TestContents(t *testing.T) {
	toc := regexp.MustCompile(`^\s*- \[[^\]]*\]\(#([^)]+)\)`)
	for _, file := range pages(t) {
		lines := prose(readLines(t, file))
		listed := map[string]bool{}
		var sections []string
		for _, line := range lines {
			if m := toc.FindStringSubmatch(line); m != nil && len(sections) == 0 {
				listed[m[1]] = true
			}
			if m := heading.FindStringSubmatch(line); m != nil && len(m[1]) == 2 {
				sections = append(sections, m[2])
			}
		}
		if len(listed) == 0 {
			continue
		}
		for _, s := range sections {
			if !listed[slug(s)] {
				t.Errorf("%s: section %q is missing from the table of contents", file, s)
			}
		}
	}
}

// TestTutorialExcerpts holds the model excerpts of the tutorial (its yaml
// blocks, the CI workflow aside) to the model: each line shown, comments
// aside, is a line of docs/tutorial/clinic.yaml.
func TestTutorialExcerpts(t *testing.T) {
	model := map[string]bool{}
	for _, line := range readLines(t, "docs/tutorial/clinic.yaml") {
		model[strings.TrimRight(line, " ")] = true
	}
	const page = "docs/tutorial/getting-started.md"
	for _, b := range blocks(readLines(t, page)) {
		if b.lang != "yaml" || slices.Contains(b.body, "jobs:") {
			continue
		}
		for i, line := range b.body {
			code := strings.TrimSpace(line)
			if code == "" || strings.HasPrefix(code, "#") {
				continue
			}
			if !model[strings.TrimRight(line, " ")] {
				t.Errorf("%s:%d: %q is not a line of docs/tutorial/clinic.yaml", page, b.line+i, line)
			}
		}
	}
}

// TestEngineRooms holds the engine's rooms (docs/engine.md, "In the code")
// to its files: each file named exists, and each file is in a room.
func TestEngineRooms(t *testing.T) {
	var named []string
	in := false
	for _, line := range readLines(t, "docs/engine.md") {
		if m := heading.FindStringSubmatch(line); m != nil {
			in = m[2] == "In the code"
		}
		if in && strings.HasPrefix(line, "|") {
			for _, m := range goFile.FindAllStringSubmatch(line, -1) {
				named = append(named, m[1])
			}
		}
	}
	roomed := map[string]bool{}
	for _, n := range named {
		files, _ := filepath.Glob(filepath.Join(root, "engine", n))
		if len(files) == 0 {
			t.Errorf("docs/engine.md: engine/%s does not exist", n)
		}
		for _, f := range files {
			roomed[filepath.Base(f)] = true
		}
	}
	files, err := filepath.Glob(filepath.Join(root, "engine", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if b := filepath.Base(f); !strings.HasSuffix(b, "_test.go") && b != "doc.go" && !roomed[b] {
			t.Errorf("docs/engine.md: engine/%s is in no room of \"In the code\"", b)
		}
	}
}
