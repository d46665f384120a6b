package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"wright/agents/skills"
)

func init() {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "The skills wright gives coding agents (SKILL.md files)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var agent, dir string
	var user bool
	install := &cobra.Command{
		Use:   "install [--agent " + strings.Join(skills.AgentNames(), "|") + "] [--dir DIR]",
		Short: "Write wright's skills where a coding agent reads them",
		Long: `Write wright's skills, a folder with a SKILL.md each, where the agent looks:
wright-web (when to use wright run, rerun, scripts and browser) and wright-loop
(the agent is the loop: explore with wright browser, write final_script.py,
pass wright reflect on a fresh run, save it). By default into the project in
the working directory (.claude/skills, .agents/skills for Codex, .github/skills
for Copilot, .cursor/skills); --user into the home directory's; --dir exactly
there. An older copy is replaced.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir()
			folder, err := skills.Folder(agent, dir, wd, home, user)
			if err != nil {
				return usageError("%v", err)
			}
			written, err := skills.Install(folder)
			if err != nil {
				return err
			}
			for _, p := range written {
				fmt.Fprintln(cmd.OutOrStdout(), displayPath(p))
			}
			return nil
		},
	}
	fl := install.Flags()
	fl.StringVar(&agent, "agent", "claude", "the agent: "+strings.Join(skills.AgentNames(), ", "))
	fl.StringVar(&dir, "dir", "", "write into this skills folder instead (DIR/<skill>/SKILL.md)")
	fl.BoolVar(&user, "user", false, "write into the agent's folder in the home directory, for every project")
	list := &cobra.Command{
		Use:   "list",
		Short: "Name and describe the skills wright ships",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, s := range skills.All() {
				fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s\n", s.Name, s.Description)
			}
			return nil
		},
	}
	cmd.AddCommand(install, list)
	rootCmd.AddCommand(cmd)
}
