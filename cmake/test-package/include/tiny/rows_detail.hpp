#pragma once

namespace tiny {
inline constexpr float kRowGain = 1.5f;
}  // namespace tiny
