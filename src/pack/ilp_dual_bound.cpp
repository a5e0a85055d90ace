#include "pack/ilp_dual_bound.h"

#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/ClpSimplex.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <cmath>
#include <string>

namespace frugal::pack {
namespace {

int no_callback(CbcModel* /*model*/, int /*where*/) {
  return 0;
}

}  // namespace

Result<double> cbc_dual_bound(const ClpSimplex& lp, double seconds) {
  ClpSimplex copy(lp);
  OsiClpSolverInterface osi(&copy, false);
  for (int c = 0; c < osi.getNumCols(); ++c) osi.setInteger(c);
  osi.messageHandler()->setLogLevel(0);
  CbcModel model(osi);
  model.setLogLevel(0);
  CbcSolverUsefulData data;
  data.noPrinting_ = true;
  CbcMain0(model, data);
  const std::string sec = std::to_string(seconds);
  const char* argv[] = {"frugal", "-log",      "0",      "-slog", "0",
                        "-sec",   sec.c_str(), "-solve", "-quit"};
  CbcMain1(static_cast<int>(sizeof(argv) / sizeof(argv[0])), argv, model, no_callback, data);
  const double b = model.getBestPossibleObjValue();
  const double lp_opt = lp.objectiveValue();
  if (!std::isfinite(b) || b < 0 || std::abs(b) > 1e30)
    return Error{"cbc: no dual bound within the time limit"};
  return std::min(b, lp_opt);
}

}  // namespace frugal::pack
