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

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{1, "table", "1 table"}, {0, "table", "0 tables"}, {2, "table", "2 tables"},
		{3, "index", "3 indexes"}, {2, "entity", "2 entities"}, {2, "day", "2 days"},
		{1047, "item", "1,047 items"}, {2, "access pattern", "2 access patterns"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
