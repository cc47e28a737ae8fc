package schema

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// released pins the SHA-256 of every step file. A mismatch means a step
// was edited. Once a step is released, databases have run it and will
// never run it again, so an edit reaches none of them: put the file back
// and add a new step (steps/steps.go, steps/NNN_name.up.sql and .down.sql, and
// its line here) that makes the change. A new step's line is added with
// the step.
var released = map[string]string{
	"001_idemgen.up.sql":                  "8cceedc2f65fa8064f9b47705841ff31553cd3fdabb28c3359ef8f3e7e9f822f", // v0.1.0
	"001_idemgen.down.sql":                "ec0c6f832d85904a93d7cca49e50fdf919c9f238e0fe36fc7e69691eff9def1a", // v0.1.0
	"002_idemgen_schema_version.up.sql":   "95e0659ee7f896893f78cc5b38584970d34b912671a6909cbe0bc14e0ed946f2",
	"002_idemgen_schema_version.down.sql": "c5037b20d457f74ba9291bcdbddecee22eb302f7d0dcf7468df333df94cf23a8",
	"003_idemgen_effects.up.sql":          "fc2ba1b457b28193fca1efb6603742012b8871c2d6abba32e4d44dd40322da0f",
	"003_idemgen_effects.down.sql":        "88a3fb9263cd341e79232ea3ce493687732d61861b0b43787ed39100208d9315",
	"004_idemgen_checkpoints.up.sql":      "4043b21cda6c82a97e4d3ff0f7a62e674ddf9c24f118f7c8e9cc02d75acc24da",
	"004_idemgen_checkpoints.down.sql":    "8e6e7647e98eb7472e37cd60a86d53516d1ea3c00374b507983d2369fd649560",
	"005_idemgen_trace_context.up.sql":    "c6c6987b8ff82f3aec2a638e4772fbb27f5d8069992d9af686830d47cdf137db",
	"005_idemgen_trace_context.down.sql":  "e41f0decfea549bcbae7e8966f6fee62542ac4fecaeb8a6c250ceaa91087928a",
	"006_idemgen_inbox.up.sql":            "03bc74d335ffdd5614f5781aa666dfe4215115730e26a52c8fe2017b48263547",
	"006_idemgen_inbox.down.sql":          "64a68e6d30583876a2f7e893b65ff4062805325677459b0abb9e017bd3e5cee2",
}

func TestReleasedStepsNeverChange(t *testing.T) {
	got := map[string]string{}
	for _, s := range Steps() {
		for direction, src := range map[string]string{"up": s.Up, "down": s.Down} {
			sum := sha256.Sum256([]byte(src))
			got[fmt.Sprintf("%03d_%s.%s.sql", s.Number, s.Name, direction)] = hex.EncodeToString(sum[:])
		}
	}
	for name, want := range released {
		switch sum, ok := got[name]; {
		case !ok:
			t.Errorf("steps/%s is released but gone: a released step stays, the schema changes by a new step", name)
		case sum != want:
			t.Errorf("steps/%s changed (sha256 %s, released %s): never edit a released step, add a new one instead", name, sum, want)
		}
	}
	for name, sum := range got {
		if _, ok := released[name]; !ok {
			t.Errorf("steps/%s is not pinned: add %q: %q to released in steps_test.go with the new step", name, name, sum)
		}
	}
}

// Step 1 is the schema v0.1.0 released, byte for byte.
func TestStep1IsTheReleasedSchema(t *testing.T) {
	up, down := gooseSections(t, releasedGoose)
	setPath := "SELECT set_config('search_path', '\"idempotency\"', true);\n"
	wantUp := "CREATE SCHEMA IF NOT EXISTS \"idempotency\";\n" + setPath + strings.TrimSpace(all[0].Up) + "\n"
	if up != wantUp {
		t.Errorf("step 1's up is not v0.1.0's DDL:\n got %q\nwant %q", wantUp, up)
	}
	if wantDown := setPath + strings.TrimSpace(all[0].Down) + "\n"; down != wantDown {
		t.Errorf("step 1's down is not v0.1.0's:\n got %q\nwant %q", wantDown, down)
	}
}

// Applied by any tool, step by step, each step leaves its number as the
// schema's version, and each down step takes it back.
func TestEachStepRecordsItsNumber(t *testing.T) {
	ctx := t.Context()
	pool := pgtest.Pool(t)
	check := func(want int) {
		t.Helper()
		got, err := installed(ctx, pool, "")
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("version %d, want %d", got, want)
		}
	}
	check(0)
	for _, s := range Steps() {
		exec(t, pool, s.Up)
		check(s.Number)
	}
	for _, s := range slices.Backward(Steps()) {
		exec(t, pool, s.Down)
		check(s.Number - 1)
	}
}

// exec runs sql on pool in one transaction, as a migration tool would.
func exec(t *testing.T, pool *pgxpool.Pool, sql string) {
	t.Helper()
	if err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(context.Background(), sql)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}
