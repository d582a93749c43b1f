package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// summaryRuns adds to each listed set without a measured run in the runs
// table the runs its benchmarks know only as summaries (an imported perf
// stat -r 5 block: five runs whose values were not kept), which List
// counted as none while compare used all five (issue 35 point 10). Only
// such sets' bodies are read.
func (s *sqlStore) summaryRuns(ctx context.Context, infos []Info) error {
	for i := range infos {
		if infos[i].Runs != 0 {
			continue
		}
		var body string
		if err := s.db.QueryRowContext(ctx, s.rebind("SELECT body FROM sets WHERE id = ?"), infos[i].ID).Scan(&body); err != nil {
			return fmt.Errorf("%s: %w", s.loc, err)
		}
		var set struct {
			Benchmarks []struct {
				Summaries map[string]struct {
					N int `json:"n"`
				} `json:"summaries"`
			} `json:"benchmarks"`
		}
		if json.Unmarshal([]byte(body), &set) != nil {
			continue // the set's own reader says what is wrong with it
		}
		for _, b := range set.Benchmarks {
			n := 0
			for _, sum := range b.Summaries {
				n = max(n, sum.N)
			}
			infos[i].Runs += n
		}
	}
	return nil
}
