package main

import (
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/runtime/idemops"
)

// newOpsCommand builds idemgen ops, the support commands: they read and
// change a running service's idempotency tables in the database at
// DATABASE_URL.
func newOpsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ops",
		Short: "Support: inspect operations and their effects, resolve or resume what waits for a person, apply retention",
		Long: "idemgen ops works on the runtime's tables in the database at DATABASE_URL (--schema names their schema), " +
			"through the runtime's support library (runtime/idemops). list, show and audit read; resolve and retry change an " +
			"effect in requires_recovery or dead, and resume and resolve an operation in requires_recovery, each with a reason " +
			"and an actor written to the audit table in the same transaction; sweep applies retention once, for cron.\n\n" +
			"Keys are shown as the keyed hash the service's logs print as key_hash, computed with the secret in " +
			keyHashSecretEnv + ": set it to the service's idem.Config.KeyHashSecret (the same bytes). Without it keys show as -, " +
			"since no other secret gives the logs' hashes; --show-keys shows keys in clear. A key given to --key is found " +
			`in either form a client sends it: bare (abc) or as a Structured Field string ("abc").`,
	}
	cmd.AddCommand(newSweepCommand())
	addOpsEffectCommands(cmd)
	return cmd
}

// newSweepCommand builds idemgen ops sweep.
func newSweepCommand() *cobra.Command {
	var schema string
	var o idemops.SweepOptions
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Apply retention once: for cron, instead of the service's Executor.Maintain",
		Long: `sweep applies retention once to the idempotency tables of the database
named by DATABASE_URL, as Executor.Maintain does every minute in a service:
records past retention become tombstones, tombstones past their period are
deleted, then natural-key rows older than --natural-key-lifetime (kept when
it is 0). It works in short batches that skip rows a running operation
holds. Every deadline is compared with the database's clock, never this
machine's; a warning goes to stderr when the two differ by more than
--max-clock-skew. Exit code 0 when it swept, 1 when the sweep failed, 2 for
unusable input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			url := os.Getenv("DATABASE_URL")
			if url == "" {
				return &exitError{code: exitUnusable, err: errDatabaseURLUnset}
			}
			pool, err := pgxpool.New(cmd.Context(), url)
			if err != nil {
				return &exitError{code: exitUnusable, err: fmt.Errorf("ops sweep: DATABASE_URL: %w", err)}
			}
			defer pool.Close()
			client, err := idemops.New(pool, idemops.Config{Schema: schema})
			if err != nil {
				return &exitError{code: exitUnusable, err: fmt.Errorf("ops sweep: %w", err)}
			}
			res, err := client.Sweep(cmd.Context(), o)
			if err != nil {
				return &exitError{code: exitFindings, err: fmt.Errorf("ops sweep: %w", err)}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "swept: %d tombstoned, %d deleted, %d natural keys deleted, %d messages deleted, in %d batches (longest %s)\n",
				res.Tombstoned, res.Deleted, res.NaturalKeysDeleted, res.MessagesDeleted, res.Batches, res.LongestBatch.Round(time.Millisecond))
			if res.ClockSkewed {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: this machine's clock is %s ahead of the database's (negative: behind); the sweep went by the database's\n",
					res.ClockSkew.Round(time.Millisecond))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&schema, "schema", "", `schema of the idempotency tables; "" follows the search_path`)
	f.IntVar(&o.BatchSize, "batch-size", 0, "rows per statement (default 1000)")
	f.DurationVar(&o.BatchTimeout, "batch-timeout", 0, "the database cancels a batch statement that runs longer (default 1s)")
	f.DurationVar(&o.NaturalKeyLifetime, "natural-key-lifetime", 0, "delete natural-key rows claimed longer ago; 0 keeps them")
	f.DurationVar(&o.MaxClockSkew, "max-clock-skew", 0, "warn when this machine's clock and the database's differ by more (default 1m)")
	return cmd
}
