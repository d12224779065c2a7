package dataset

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The calendar's arithmetic and formats against the time package's, on
// random instants, amounts and zones (one with transitions, one fixed,
// UTC): whatever the calendar accepts, it gives the same text and instant.
func TestCalendarAgreesWithTime(t *testing.T) {
	sp, err := time.LoadLocation("America/Sao_Paulo")
	require.NoError(t, err)
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 2))
	for _, loc := range []*time.Location{sp, ny, time.UTC, time.FixedZone("x", -(3*3600 + 30*60))} {
		asOf := time.Date(2026, 9, 24, 0, 0, 0, 0, loc)
		c := newCalendar(loc, asOf)
		fast := 0
		for i := 0; i < 20000; i++ {
			ns := asOf.UnixNano() + r.Int64N(4000*86400e9) - 2000*86400e9
			if r.IntN(4) == 0 {
				ns -= ns % 1e9
			}
			ys, ms, ds, ss := int64(r.IntN(5)-2), int64(r.IntN(30)-15), int64(r.IntN(900)-450), int64(r.IntN(200000)-100000)
			want := time.Unix(0, ns).In(loc).AddDate(int(ys), int(ms), int(ds)).Add(time.Duration(ss) * time.Second)
			got, ok := c.addDate(ns, ys, ms, ds, ss)
			if !ok {
				continue
			}
			fast++
			require.Equal(t, want.UnixNano(), got, "%s %d %+d %+d %+d %+d", loc, ns, ys, ms, ds, ss)
			lt := want.In(loc)
			day, _ := c.localDay(got)
			require.Equal(t, lt.Format("2006-01-02"), string(appendDay(nil, day)))
			mid := time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, loc)
			require.Equal(t, mid.UnixNano(), c.midnight(day))
			_, off := lt.Zone()
			require.Equal(t, int64(off), c.off)
			require.Equal(t, lt.Format(time.RFC3339), string(appendStamp(nil, got, c.off, 0, 'Z')))
			require.Equal(t, lt.Format("2006-01-02T15:04:05.000Z07:00"), string(appendStamp(nil, got, c.off, 3, 'Z')))
			require.Equal(t, want.UTC().Format(time.RFC3339), string(appendStamp(nil, got, 0, 0, 'Z')))
			require.Equal(t, want.UTC().Format("2006-01-02T15:04:05.000000")+"Z", string(appendStamp(nil, got, 0, 6, 'z')))
			require.Equal(t, lt.Format("2006-01-02T15:04:05.000000000-07:00"), string(appendStamp(nil, got, c.off, 9, '-')))
			d, ok := parseDay(lt.Format("2006-01-02"))
			require.True(t, ok)
			require.Equal(t, day, d)
		}
		require.Greater(t, fast, 100, "%s: the calendar took too few", loc)
	}
	for _, bad := range []string{"2026-02-29", "2026-13-01", "2026-1-01", "20260101xx", "2026-00-10", "2026-04-31"} {
		_, ok := parseDay(bad)
		require.False(t, ok, bad)
	}
	d, ok := parseDay("2024-02-29")
	require.True(t, ok)
	require.Equal(t, "2024-02-29", string(appendDay(nil, d)))
}

// appendUTCMinute writes what the time package's layout writes.
func TestAppendUTCMinute(t *testing.T) {
	r := newRNG(7)
	loc, err := time.LoadLocation("America/Sao_Paulo")
	require.NoError(t, err)
	for i := 0; i < 20000; i++ {
		at := time.Unix(r.Range(-70_000_000_000, 260_000_000_000), r.Range(0, 999_999_999)).In(loc)
		require.Equal(t, at.UTC().Format("200601021504"), string(appendUTCMinute(nil, at)), at.String())
	}
}
