#include "core/calibrate/LeastSquares.h"

#include <algorithm>
#include <cmath>

namespace trainplan {

namespace {

double toBounded(double u, const BoundedParameter &p)
{
    return p.lower + (p.upper - p.lower) / (1.0 + std::exp(-u));
}

double toFree(double value, const BoundedParameter &p)
{
    const double x = std::clamp((value - p.lower) / (p.upper - p.lower), 1e-9, 1.0 - 1e-9);
    return std::log(x / (1.0 - x));
}

struct FitProblem
{
    const std::vector<BoundedParameter> &parameters;
    const Residuals &residuals;
    std::vector<bool> held;

    /// Values of every parameter for the free variables of the fitted ones.
    std::vector<double> values(const Eigen::VectorXd &u) const
    {
        std::vector<double> v;
        Eigen::Index k = 0;
        for (std::size_t i = 0; i < parameters.size(); ++i)
            v.push_back(held[i] ? parameters[i].value : toBounded(u[k++], parameters[i]));
        return v;
    }
    Eigen::VectorXd r(const Eigen::VectorXd &u) const { return residuals(values(u)); }
    Eigen::MatrixXd jacobian(const Eigen::VectorXd &u, const Eigen::VectorXd &r0) const
    {
        Eigen::MatrixXd j(r0.size(), u.size());
        for (Eigen::Index c = 0; c < u.size(); ++c) {
            Eigen::VectorXd step = u;
            const double h = 1e-4 * std::max(1.0, std::abs(u[c]));
            step[c] += h;
            j.col(c) = (r(step) - r0) / h;
        }
        return j;
    }
};

/// Marquardt iterations from `u`; returns the number taken.
int iterate(const FitProblem &problem, Eigen::VectorXd &u, int maxIterations, bool &converged)
{
    Eigen::VectorXd r0 = problem.r(u);
    double cost = r0.squaredNorm(), lambda = 1e-3;
    converged = false;
    int it = 0;
    for (; it < maxIterations && u.size() > 0; ++it) {
        const Eigen::MatrixXd j = problem.jacobian(u, r0);
        const Eigen::MatrixXd jtj = j.transpose() * j;
        const Eigen::VectorXd g = j.transpose() * r0;
        bool improved = false;
        for (int tries = 0; tries < 12 && !improved; ++tries) {
            Eigen::MatrixXd a = jtj;
            a.diagonal() += lambda * jtj.diagonal().cwiseMax(1e-12);
            const Eigen::VectorXd delta = a.ldlt().solve(-g);
            const Eigen::VectorXd trial = u + delta;
            const Eigen::VectorXd rt = problem.r(trial);
            if (rt.allFinite() && rt.squaredNorm() < cost) {
                const double gain = cost - rt.squaredNorm();
                u = trial, r0 = rt, cost = rt.squaredNorm(), lambda = std::max(lambda / 3.0, 1e-9), improved = true;
                if (gain < 1e-12 * std::max(1.0, cost) || delta.norm() < 1e-9) {
                    converged = true;
                    return it + 1;
                }
            } else {
                lambda *= 4.0;
            }
        }
        if (!improved) {
            converged = true; // no step lowers the cost: a minimum at this resolution
            return it + 1;
        }
    }
    return it;
}

Eigen::VectorXd freeStart(const FitProblem &problem)
{
    std::vector<double> u;
    for (std::size_t i = 0; i < problem.parameters.size(); ++i)
        if (!problem.held[i])
            u.push_back(toFree(problem.parameters[i].value, problem.parameters[i]));
    return Eigen::Map<Eigen::VectorXd>(u.data(), Eigen::Index(u.size()));
}

/// The Jacobian with respect to the parameters themselves (chain rule through the bounds).
Eigen::MatrixXd valueJacobian(const FitProblem &problem, const Eigen::VectorXd &u, const Eigen::VectorXd &r0)
{
    Eigen::MatrixXd j = problem.jacobian(u, r0);
    Eigen::Index k = 0;
    for (std::size_t i = 0; i < problem.parameters.size(); ++i) {
        if (problem.held[i])
            continue;
        const BoundedParameter &p = problem.parameters[i];
        const double s = 1.0 / (1.0 + std::exp(-u[k]));
        j.col(k) /= (p.upper - p.lower) * s * (1.0 - s);
        ++k;
    }
    return j;
}

/// The fitted parameter the data identifies least, when J^T J is near singular; -1 when all are identified.
int leastIdentified(const FitProblem &problem, const Eigen::MatrixXd &j)
{
    if (j.cols() == 0)
        return -1;
    // Columns scaled to unit length, so that units do not decide.
    Eigen::MatrixXd scaled = j;
    for (Eigen::Index c = 0; c < j.cols(); ++c)
        scaled.col(c) /= std::max(j.col(c).norm(), 1e-300);
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(scaled.transpose() * scaled);
    Eigen::Index weakest = -1;
    for (Eigen::Index c = 0; c < j.cols(); ++c)
        if (j.col(c).norm() < 1e-10)
            weakest = c;
    if (weakest < 0 && eig.eigenvalues()[0] < 1e-8 * std::max(1.0, eig.eigenvalues()[j.cols() - 1]))
        eig.eigenvectors().col(0).cwiseAbs().maxCoeff(&weakest);
    if (weakest < 0)
        return -1;
    for (std::size_t i = 0, k = 0; i < problem.parameters.size(); ++i)
        if (!problem.held[i] && Eigen::Index(k++) == weakest)
            return int(i);
    return -1;
}

} // namespace

LeastSquaresFit fitLeastSquares(const std::vector<BoundedParameter> &parameters, const Residuals &residuals,
                                int maxIterations)
{
    FitProblem problem{parameters, residuals, std::vector<bool>(parameters.size(), false)};
    LeastSquaresFit fit;
    fit.startCost = residuals([&] {
                        std::vector<double> v;
                        for (const BoundedParameter &p : parameters)
                            v.push_back(p.value);
                        return v;
                    }()).squaredNorm();
    Eigen::VectorXd u;
    Eigen::MatrixXd j;
    Eigen::VectorXd r;
    // Fit, then hold the least identified parameter while the data leave a direction undetermined.
    for (std::size_t round = 0; round <= parameters.size(); ++round) {
        u = freeStart(problem);
        fit.iterations += iterate(problem, u, maxIterations, fit.converged);
        r = problem.r(u);
        j = valueJacobian(problem, u, r);
        const int weakest = leastIdentified(problem, j);
        if (weakest < 0)
            break;
        problem.held[std::size_t(weakest)] = true;
    }
    fit.values = problem.values(u);
    fit.held = problem.held;
    fit.residuals = r;
    fit.cost = r.squaredNorm();
    fit.standardErrors.assign(parameters.size(), 0.0);
    const Eigen::Index n = r.size(), p = j.cols();
    if (p > 0 && n > p) {
        const Eigen::MatrixXd cov =
            (j.transpose() * j).ldlt().solve(Eigen::MatrixXd::Identity(p, p)) * (fit.cost / double(n - p));
        for (std::size_t i = 0, k = 0; i < parameters.size(); ++i)
            if (!problem.held[i]) {
                fit.standardErrors[i] = std::sqrt(std::max(0.0, cov(Eigen::Index(k), Eigen::Index(k))));
                ++k;
            }
    }
    return fit;
}

} // namespace trainplan
