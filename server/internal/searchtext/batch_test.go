package searchtext

import "testing"

func TestBatchLen(t *testing.T) {
	const mb = 1 << 20
	cases := []struct {
		name    string
		sizes   []int64
		maxKeys int
		want    int
	}{
		{"none", nil, 200, 0},
		{"small keys: the key bound", []int64{10, 10, 10, 10}, 3, 3},
		{"fewer than either bound", []int64{10, 10}, 200, 2},
		{"large entries: the byte bound", []int64{mb, mb, mb, mb, mb, mb}, 200, 4},
		{"exactly the budget", []int64{2 * mb, 2 * mb, 1}, 200, 2},
		{"one entry over the budget goes alone", []int64{5 * mb, 1, 1}, 200, 1},
		{"deletes cost nothing", []int64{0, 0, 0, BatchBytes, 0, 1}, 200, 5},
		{"a negative size counts as none", []int64{-mb, BatchBytes}, 200, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := BatchLen(c.sizes, c.maxKeys)
			if got != c.want {
				t.Errorf("BatchLen(%v, %d) = %d, want %d", c.sizes, c.maxKeys, got, c.want)
			}
		})
	}
}
