// Reference data: darknet's own detections for YOLO-LITE VOC (shared/models/yolo-lite-voc/SOURCE.md),
// made by pjreddie/darknet built without OpenCV (stb_image decoding), thresh 0.25, hier 0.5, nms 0.45,
// letterbox, 224x224. Pixel rectangles are draw_detections' formula (none of these boxes needs its
// clamping). Copied here because they are the ground truth the tests hold everything against.
#pragma once

#include <string>
#include <vector>

#include "detection_rows.hpp"

namespace fpgacnn::crosscheck {

struct ListedDetection {
    const char* class_name;
    float prob;
    float x, y, w, h;  // relative
    int left, top, right, bottom;
};

struct ListedImage {
    const char* image;  // in /usr/share/darknet/data
    int image_w;
    int image_h;
    double region_sum;  // over the activated [region] output
    double region_abssum;
    std::vector<ListedDetection> detections;  // in darknet's print order
};

inline const std::vector<ListedImage>& yolo_lite_voc_listing() {
    static const std::vector<ListedImage> listing = {
        {"dog.jpg",
         768,
         576,
         414.321071,
         636.659842,
         {
             {"dog", 0.8112f, 0.2689f, 0.6551f, 0.3449f, 0.6238f, 74, 197, 338, 556},
             {"car", 0.3246f, 0.7801f, 0.1484f, 0.2304f, 0.1125f, 510, 53, 687, 117},
             {"car", 0.2500f, 0.6391f, 0.1631f, 0.1481f, 0.1252f, 433, 57, 547, 129},
             {"bicycle", 0.9641f, 0.4926f, 0.4953f, 0.5831f, 0.6439f, 154, 99, 602, 470},
         }},
        {"person.jpg",
         640,
         424,
         394.161121,
         666.914726,
         {
             {"sheep", 0.9682f, 0.8117f, 0.5548f, 0.1804f, 0.3503f, 461, 160, 577, 309},
             {"sheep", 0.7846f, 0.8142f, 0.5506f, 0.2949f, 0.5083f, 426, 125, 615, 341},
             {"sheep", 0.6738f, 0.8732f, 0.5321f, 0.0962f, 0.3373f, 528, 154, 589, 297},
             {"person", 0.9820f, 0.3562f, 0.5257f, 0.1642f, 0.7860f, 175, 56, 280, 389},
             {"dog", 0.8437f, 0.2511f, 0.6913f, 0.1797f, 0.1640f, 103, 258, 218, 327},
             {"dog", 0.4298f, 0.3277f, 0.6358f, 0.1347f, 0.2695f, 166, 212, 252, 326},
             {"dog", 0.3992f, 0.6989f, 0.6340f, 0.0884f, 0.1773f, 418, 231, 475, 306},
             {"bird", 0.3554f, 0.3275f, 0.6189f, 0.3163f, 0.5865f, 108, 138, 310, 386},
         }},
    };
    return listing;
}

/// How closely a pipeline must reproduce the listing. With stb decoding: the printed precision.
/// With OpenCV (libjpeg) decoding, pixels differ by up to 3/255 and so do the results, measured at
/// up to 0.0062 in prob, 0.0012 in relative box size and 1 px with Debian's libdarknet.
inline constexpr DetectionTolerance kStbDecodedTolerance{1.5e-4f, 1.5e-4f, 1};
inline constexpr DetectionTolerance kOpenCvDecodedTolerance{0.01f, 0.003f, 2};

/// The listing of one image as comparable rows.
inline std::vector<DetectionRow> rows_of(const ListedImage& listed) {
    std::vector<DetectionRow> rows;
    for (const ListedDetection& d : listed.detections)
        rows.push_back({d.class_name, d.prob, Box{d.x, d.y, d.w, d.h}, d.left, d.top, d.right, d.bottom});
    return rows;
}

}  // namespace fpgacnn::crosscheck
