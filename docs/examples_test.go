package docs_test

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHelpExamples runs every example of every command's --help, in
// order, from the root of a copy of the repository, with the built
// binary, and holds each to the exit code its comment documents (# exit
// N; 0 when it says none). The commands are found by walking the help's
// own "Available Commands", so a command added is tested with no list to
// keep. An example that needs what a test cannot give (a running server,
// an AWS account) is skipped by the reasons TestCommands skips it.
func TestHelpExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the commands' examples")
	}
	work := copyTree(t)
	seen := 0
	var walk func(path []string)
	walk = func(path []string) {
		help := helpOf(t, path)
		name := strings.Join(append([]string{"cardapio"}, path...), " ")
		for _, line := range section(help, "Examples") {
			code := strings.Join(strings.Fields(stripComment(line)), " ")
			if !runsCardapio.MatchString(code) {
				continue
			}
			seen++
			if why := skipReason(code); why != "" {
				t.Logf("%s: not run (%s): %s", name, why, code)
				continue
			}
			exit := 0
			if m := exitNote.FindStringSubmatch(comment(line)); m != nil {
				exit, _ = strconv.Atoi(m[1])
			}
			t.Run(name+": "+code, func(t *testing.T) {
				runDocumented(t, work, code, exit, 5*time.Minute)
			})
		}
		for _, line := range section(help, "Available Commands") {
			sub := strings.Fields(line)
			if len(sub) == 0 || sub[0] == "help" || sub[0] == "completion" {
				continue
			}
			walk(append(append([]string(nil), path...), sub[0]))
		}
	}
	walk(nil)
	if seen == 0 {
		t.Fatal("no command's help shows an example: the walk read nothing")
	}
}

// helpOf is a command's --help, as the binary prints it.
func helpOf(t *testing.T, path []string) string {
	t.Helper()
	cmd := exec.Command(bin+"/cardapio", append(append([]string(nil), path...), "--help")...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cardapio %s --help: %v", strings.Join(path, " "), err)
	}
	return string(out)
}

var helpHeading = regexp.MustCompile(`^[A-Z][A-Za-z ]*:$`)

// section returns the lines under a helpHeading of a cobra help text
// ("Examples:", "Available Commands:") up to the next blank line.
func section(help, name string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(help, "\n") {
		switch {
		case line == name+":":
			in = true
		case in && (strings.TrimSpace(line) == "" || helpHeading.MatchString(line)):
			return out
		case in:
			out = append(out, line)
		}
	}
	return out
}
