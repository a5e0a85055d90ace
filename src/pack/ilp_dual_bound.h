#pragma once
// The integer version of a packing LP, bounded from above by COIN-OR Cbc.
//
// Given a maximisation LP (a ClpSimplex with its objective sense set), cbc_dual_bound makes every
// column integer and runs Cbc's branch and cut (its default cut generators and preprocessing)
// for at most `seconds`, and returns Cbc's best dual bound: the largest objective any integer
// solution can reach, as proven so far. It is valid whether or not the search finished (it is
// never the incumbent, which is a lower bound), and never above the LP optimum. When Cbc proves
// nothing (no root bound within the time, or a non-finite value), it returns an error and the
// caller keeps the LP bound. Cbc's own logging is off; nothing is printed.

#include "model/result.h"

class ClpSimplex;

namespace frugal::pack {

Result<double> cbc_dual_bound(const ClpSimplex& lp, double seconds);

}  // namespace frugal::pack
