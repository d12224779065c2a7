package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Inputs that never end or have no bound are refused with exit 2 instead
// of being read until memory runs out.
func TestEndlessInputsAreRefused(t *testing.T) {
	_, errOut, code := runCheckCLI("cost", "--prices", "/dev/zero", "../../model.yaml")
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "read /dev/zero: a character device, not a file")

	_, errOut, code = runCheckCLI("capacity", "item", "--jsonl", "/dev/zero")
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "read /dev/zero: a character device, not a file")

	_, errOut, code = runCheckCLI("capacity", "item", "/dev/zero")
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "read /dev/zero: a character device, not a file")
}
