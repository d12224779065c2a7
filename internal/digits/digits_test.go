package digits

import "testing"

func TestGroup(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "7": "7", "999": "999", "1000": "1,000", "1047": "1,047",
		"123456": "123,456", "1234567": "1,234,567", "-1234": "-1,234", "-999": "-999",
		"100000000000000000000": "100,000,000,000,000,000,000",
	} {
		if got := Group(in); got != want {
			t.Errorf("Group(%q) = %q, want %q", in, got, want)
		}
	}
}
