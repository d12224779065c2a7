package capacity

// SizeHistogram counts item sizes exactly: one counter per byte size up to
// MaxItemSize (3.2 MB, allocated once), so that percentiles of any number
// of items are exact and memory stays flat however long the stream.
// Sizes over the limit are not items DynamoDB would store: they are only
// counted, in Over. The zero value is ready to use.
type SizeHistogram struct {
	counts []uint64
	n      uint64
	total  uint64
	max    int
	Over   uint64 // sizes over MaxItemSize
}

// Add counts one item of size bytes, and reports false (counting it in
// Over only) when size is beyond MaxItemSize.
func (h *SizeHistogram) Add(size int) bool {
	if size > MaxItemSize {
		h.Over++
		return false
	}
	if h.counts == nil {
		h.counts = make([]uint64, MaxItemSize+1)
	}
	size = max(size, 0)
	h.n++
	h.total += uint64(size)
	h.max = max(h.max, size)
	h.counts[size]++
	return true
}

// Merge adds o's counts into h.
func (h *SizeHistogram) Merge(o *SizeHistogram) {
	if o.n == 0 {
		return
	}
	if h.counts == nil {
		h.counts = make([]uint64, MaxItemSize+1)
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.total += o.total
	h.max = max(h.max, o.max)
	h.Over += o.Over
}

// Count returns how many sizes were counted (Over excluded).
func (h *SizeHistogram) Count() uint64 { return h.n }

// Total returns the sum of the sizes.
func (h *SizeHistogram) Total() uint64 { return h.total }

// Max returns the largest size added.
func (h *SizeHistogram) Max() int { return h.max }

// Percentile returns the nearest-rank percentile (0 < p <= 100): the
// smallest size such that at least p% of the items are no larger. It is 0
// for an empty histogram.
func (h *SizeHistogram) Percentile(p float64) int {
	if h.n == 0 {
		return 0
	}
	rank := uint64(p / 100 * float64(h.n))
	if float64(rank) < p/100*float64(h.n) {
		rank++
	}
	rank = max(rank, 1)
	var seen uint64
	for size, c := range h.counts {
		seen += c
		if seen >= rank {
			return size
		}
	}
	return h.max
}

// Units returns the units of writing every item once and of reading every
// item once with a strong read, each rounded on its own; eventual reads
// are half the read figure, transactional writes and reads double.
func (h *SizeHistogram) Units() (write, read float64) {
	for size, c := range h.counts {
		if c == 0 {
			continue
		}
		write += float64(c) * WriteUnits(size)
		read += float64(c) * ReadUnits(size, Strong)
	}
	return write, read
}
