// Package judge is wright's screenshot judge: Reflect, the two-stage
// verdict on a final run (stage 1 scores each screenshot, stage 2 decides
// with the log and the reasonings), ImageQA for one question about
// screenshots, the judge's prompts and their placeholders, and how the
// judge reaches its model (JudgeModel; keyproxy keeps the key out of the
// model's shell). RunJudge is the judge the rerun gate asks.
//
// The gate package owns the final-run layout (final_runs/run_<N>, the
// file names) and the decision to let a run finish; this package only
// judges, and imports gate for the layout, never the other way round.
package judge
