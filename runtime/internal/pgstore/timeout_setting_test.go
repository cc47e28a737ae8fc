package pgstore_test

import (
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// Every duration renders as a setting PostgreSQL takes for lock_timeout
// and statement_timeout: none below 1 ms (0 would wait forever) and none
// above its 32-bit limit, where a configured timeout of more than 24.8
// days failed every statement it bounded ("Value exceeds integer range").
func TestTimeoutSettingIsOneThePostgreSQLTakes(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "1ms"},
		{0, "1ms"},
		{time.Microsecond, "1ms"},
		{1500 * time.Microsecond, "1ms"},
		{5 * time.Second, "5s"},
		{(1<<31 - 1) * time.Millisecond, "2147483647ms"},
		{(1 << 31) * time.Millisecond, "2147483647ms"},
		{365 * 24 * time.Hour, "2147483647ms"},
		{time.Duration(1<<63 - 1), "2147483647ms"},
	} {
		setting := pgstore.TimeoutSetting(tc.d)
		for _, name := range []string{"lock_timeout", "statement_timeout"} {
			var got string
			// Local: the setting ends with the statement. current_setting
			// shows the largest unit that divides the value.
			if err := pool.QueryRow(t.Context(), "SELECT set_config($1, $2, true), current_setting($1)", name, setting).Scan(new(string), &got); err != nil {
				t.Fatalf("%v: set_config(%s, %q): %v", tc.d, name, setting, err)
			}
			if got != tc.want {
				t.Errorf("%v: %s %q reads back as %q, want %q", tc.d, name, setting, got, tc.want)
			}
		}
	}
}
