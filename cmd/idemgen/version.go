package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/generator"
)

// newVersionCommand builds idemgen version.
func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of idemgen",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), versionText(debug.ReadBuildInfo()))
			return err
		},
	}
}

// versionText is what idemgen version prints: the generator version (from
// the build information, see generator.Version) and, when the binary
// carries build information, its module version and Go version.
func versionText(info *debug.BuildInfo, ok bool) string {
	s := "idemgen " + generator.Version() + "\n"
	if ok && info != nil {
		s += fmt.Sprintf("module %s %s\n%s\n", info.Main.Path, info.Main.Version, info.GoVersion)
	}
	return s
}
