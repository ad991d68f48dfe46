#pragma once
// The cluster canvas's scene geometry (scene units are pixels at 100% zoom; the width follows the viewport).

#include <QtGlobal>

namespace trainplan::scene {

inline constexpr qreal kMargin = 12;
inline constexpr qreal kNetworkHeight = 34;
inline constexpr qreal kConnector = 22;
inline constexpr qreal kCell = 9;      // one GPU
inline constexpr qreal kCellGap = 2;
inline constexpr qreal kNodePad = 4;
inline constexpr qreal kNodeGap = 6;
inline constexpr int kCellsPerRow = 8;
inline constexpr int kMaxExpandedNodes = 512; // an expanded group draws at most this many nodes, then a count

} // namespace trainplan::scene
