// Package plan is the plan document: a solved schedule written out as JSON
// with everything apply, simulate, the charts and users' scripts need to act
// on it, and enough (the jobs' models, the cluster) to check it alone.
//
//	model.Problem + model.Solution (from optimize.Solve)
//	  → New        phases with start times and runtimes, the placement, the
//	               makespans, the saving and the gap to the optimum or bound
//	  → MarshalIndent → a file → ReadFile / Parse → Verify
//
// Verify recomputes every number from the models, so a plan edited by hand or
// by a script is checked before anything acts on it. The package imports only
// model: it sits to the right of optimize, which does not import it.
package plan
