// Package testbin builds the cardapio binary of the tree for the tests
// that run it as a user does (the documentation's commands, the CI
// steps), once per test binary.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Main builds cardapio from the repository holding the package under
// test (the parent of its folder) into a temporary directory, runs the
// tests with root and bin set, and removes the directory; it returns the
// exit code for os.Exit.
func Main(m *testing.M, prefix string, root, bin *string) int {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	*root = filepath.Dir(wd)
	tmp, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	*bin = filepath.Join(tmp, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(*bin, "cardapio"), "./cmd/cardapio")
	build.Dir = *root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building cardapio: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}
