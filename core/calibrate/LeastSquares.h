#pragma once
// Bounded nonlinear least squares by Levenberg-Marquardt on Eigen matrices: minimise sum r_i(theta)^2
// with every parameter kept inside [lower, upper] through a smooth change of variables
// (theta = lower + (upper - lower) / (1 + exp(-u))), a forward-difference Jacobian, and Marquardt's
// scaling (J^T J + lambda diag(J^T J)). Parameters the data cannot identify (a zero Jacobian column, or
// the direction of a vanishing eigenvalue of J^T J) are held at their start values and reported so.
// Standard errors come from the Jacobian at the optimum: cov = s^2 (J^T J)^-1, s^2 = RSS / (n - p).

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace trainplan {

struct BoundedParameter
{
    std::string name;
    double value = 0; ///< start value (and the held value when not identifiable)
    double lower = 0;
    double upper = 1;
};

struct LeastSquaresFit
{
    std::vector<double> values;
    std::vector<double> standardErrors; ///< 0 for held parameters
    std::vector<bool> held;
    Eigen::VectorXd residuals;          ///< at the optimum
    double startCost = 0, cost = 0;     ///< sum of squared residuals
    int iterations = 0;
    bool converged = false;
};

using Residuals = std::function<Eigen::VectorXd(const std::vector<double> &values)>;

LeastSquaresFit fitLeastSquares(const std::vector<BoundedParameter> &parameters, const Residuals &residuals,
                                int maxIterations = 60);

} // namespace trainplan
