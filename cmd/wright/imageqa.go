package main

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"wright/run/judge"
)

func init() {
	var (
		j         judgeSettings
		workspace string
		images    []string
		question  string
	)
	cmd := &cobra.Command{
		Use:   "image-qa",
		Short: "Answer a question about screenshots, as JSON {answer, evidence, unknown, confidence}",
		Long: `image-qa asks the model one question about one or more screenshots and
prints its answer as a JSON object: answer, evidence (where it was read),
unknown (true when the screenshots do not show it) and confidence (0-1).
Relative image paths are resolved against --workspace-dir.

Exit status: 0 answered, 1 the model failed, 2 usage error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if question == "" || len(images) == 0 {
				return usageError("usage: wright image-qa --workspace-dir DIR --image PATH [--image PATH ...] --question TEXT")
			}
			client, _, _, err := newJudgeClient(j)
			if err != nil {
				return err
			}
			ans, err := judge.ImageQA(cmd.Context(), client, judge.ImageQAOptions{
				Workspace: workspace,
				Images:    images,
				Question:  question,
			})
			if err != nil {
				return judgeError(err)
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(ans)
		},
	}
	f := cmd.Flags()
	f.StringVar(&workspace, "workspace-dir", ".", "directory relative image paths are resolved against")
	f.StringArrayVar(&images, "image", nil, "screenshot to look at (PNG or JPEG); repeat for several")
	f.StringVar(&question, "question", "", "the question to answer")
	judgeModelFlags(cmd, &j)
	rootCmd.AddCommand(cmd)
}
