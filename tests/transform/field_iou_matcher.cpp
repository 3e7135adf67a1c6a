// Ported from a detectron2-style Matcher: the IoU of each proposal box with every ground
// truth box (clamp / maximum / minimum), the best match per proposal, and its label
// (foreground, ignored, background) from two thresholds.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void match(const Tensor& proposals, const Tensor& gt, Tensor& best_iou, Tensor& best_gt,
           Tensor& labels, float fg_threshold, float bg_threshold) {
  Tensor gt_area = (gt.select(1, 2) - gt.select(1, 0)) * (gt.select(1, 3) - gt.select(1, 1));
#pragma vmap
  for (int64_t i = 0; i < proposals.size(0); ++i) {
    Tensor box = proposals[i];
    Tensor x1 = maximum(gt.select(1, 0), box[0]);
    Tensor y1 = maximum(gt.select(1, 1), box[1]);
    Tensor x2 = minimum(gt.select(1, 2), box[2]);
    Tensor y2 = minimum(gt.select(1, 3), box[3]);
    Tensor inter = (x2 - x1).clamp(0) * clamp(y2 - y1, 0);
    Tensor area = (box[2] - box[0]) * (box[3] - box[1]);
    Tensor iou = inter / (area + gt_area - inter);
    best_iou[i] = iou.amax();
    best_gt[i] = iou.argmax();
    float top = iou.amax().item<float>();
    int64_t label = 0;
    if (top >= fg_threshold)
      label = 1;
    else if (top >= bg_threshold)
      label = -1;
    labels[i] = label;
  }
}
// CHECK-LABEL: void match(
// CHECK: vb::Value x1 = vb::maximum(gt.select(1, 0), box[0]);
// The label's else-if chain on C++ scalars: one scalar kernel (Note [Fused control flow]).
// CHECK: vb::at(labels, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](float top, float fg_threshold, float bg_threshold) {
// CHECK-NEXT: int64_t label = 0;  // line 24
// CHECK-NEXT: if (top >= fg_threshold)  // line 25
// CHECK-NEXT: label = 1;
// CHECK-NEXT: else if (top >= bg_threshold)
// CHECK-NEXT: label = -1;
// CHECK-NEXT: return label;
// CHECK-NEXT: }, iou.amax().item<float>(), fg_threshold, bg_threshold);  // lines 23-29

int main() {
  Tensor gt = tensor({0.f, 0.f, 4.f, 4.f, 5.f, 5.f, 9.f, 8.f, 2.f, 6.f, 4.f, 9.f}).reshape({3, 4});
  Tensor base = (arange(7 * 2).reshape({7, 2}).to(kFloat) * 1.3).sin().abs() * 6;
  Tensor proposals = cat({base, base + 3.5}, 1);
  Tensor best_iou = zeros({7}), best_gt = zeros({7}, kInt64), labels = zeros({7}, kInt64);
  match(proposals, gt, best_iou, best_gt, labels, 0.5f, 0.2f);
  std::cout << best_iou << "\n" << best_gt << "\n" << labels << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
