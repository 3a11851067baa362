#!/usr/bin/python3
"""Builds the image sets of the --qat measurements (docs/tools/fpgacnn-train.md): natural photos and video
frames from Debian packages, split into DIR/train, DIR/validate and DIR/holdout.

Usage: scripts/qat-images.py DIR [--dense]

No trained model's training set can be had offline, so the images come from packages that ship photos
and videos for their own examples and tests: opencv-doc (a street video of pedestrians, vtest.avi; an
animated film's clip; a tree video; photos), python3-skimage, python3-sklearn, python-matplotlib-data,
libjxl-testdata and darknet's samples. The packages are fetched with `apt-get download` into DIR/debs
and unpacked there (nothing is installed); python3-opencv (scripts/install-deps.sh --with-tests)
decodes the videos.

The split is deterministic. The photos, sorted by name, go alternately to holdout and train; vtest.avi's
first 400 frames (every 10th) go to train and its last 395 (every 20th) to holdout, so the held-out
frames are a later part of the street than the trained ones; the other videos' frames go to train. Every
4th training image (sorted by name) then moves to validate, which --qat-validate uses to choose the
iteration kept: the held-out score is then of images that chose nothing.

--dense adds more frames of the same videos to train only (every 2nd of vtest.avi's trained part below
frame 391, every 3rd of Megamind.avi, every 8th of tree.avi), none within a few frames of a validation
frame, so validate and holdout stay as they are: 224 training images instead of 65.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

import cv2

PACKAGES = ["opencv-doc", "python3-skimage", "python3-sklearn", "python-matplotlib-data", "libjxl-testdata"]
OPENCV_DATA = "usr/share/doc/opencv-doc/examples/data"
SKIMAGE_DATA = "usr/lib/python3/dist-packages/skimage/data"
OPENCV_PHOTOS = ["messi5.jpg", "basketball1.png", "aero1.jpg", "aero3.jpg", "fruits.jpg", "orange.jpg",
                 "apple.jpg", "home.jpg", "building.jpg", "baboon.jpg", "butterfly.jpg", "squirrel_cls.jpg",
                 "HappyFish.jpg", "starry_night.jpg", "leuvenA.jpg", "stuff.jpg", "box_in_scene.png",
                 "rubberwhale1.png", "ela_original.jpg", "licenseplate_motion.jpg", "aloeL.jpg", "pic1.png",
                 "pic3.png", "pic5.png", "graf1.png", "smarties.png", "board.jpg", "Blender_Suzanne1.jpg",
                 "chicky_512.png"]
SKIMAGE_PHOTOS = ["astronaut.png", "chelsea.png", "coffee.png", "motorcycle_left.png", "rocket.jpg",
                  "camera.png", "horse.png", "hubble_deep_field.jpg"]
# (video, every n-th frame, the frame from which frames are held out (None: all trained), hold-out step)
VIDEOS = [("vtest.avi", 10, 400, 20), ("Megamind.avi", 15, None, None), ("tree.avi", 40, None, None)]
SMALLEST_SIDE = 100  # icons and test patterns below this are not photos


def fetch_packages(root):
    debs = os.path.join(root, "debs")
    os.makedirs(debs, exist_ok=True)
    subprocess.run(["apt-get", "download", *PACKAGES], cwd=debs, check=True)
    unpacked = os.path.join(root, "unpacked")
    for deb in sorted(glob.glob(os.path.join(debs, "*.deb"))):
        subprocess.run(["dpkg-deb", "-x", deb, unpacked], check=True)
    return unpacked


def photo_paths(unpacked):
    paths = [os.path.join(unpacked, OPENCV_DATA, name) for name in OPENCV_PHOTOS]
    paths += [os.path.join(unpacked, SKIMAGE_DATA, name) for name in SKIMAGE_PHOTOS]
    for pattern in ["usr/lib/python3/dist-packages/sklearn/datasets/images/*.jpg",
                    "usr/share/matplotlib/mpl-data/sample_data/*.jpg",
                    "usr/share/libjxl-testdata/external/wesaturate/500px/*.png",
                    "usr/share/libjxl-testdata/jxl/flower/flower.png",
                    "usr/share/libjxl-testdata/external/raw.pixls/*.png"]:
        paths += sorted(glob.glob(os.path.join(unpacked, pattern)))
    paths += sorted(glob.glob("/usr/share/darknet/data/*.jpg"))
    return paths


def write(image, folder, name):
    os.makedirs(folder, exist_ok=True)
    if not cv2.imwrite(os.path.join(folder, name), image):
        sys.exit(f"qat-images: cannot write {os.path.join(folder, name)}")


# --dense: (video, every n-th frame, frames from this one on are not taken (None: all), frames this
# close to a validation frame of the same video are not taken)
DENSE_VIDEOS = [("vtest.avi", 2, 391, 6), ("Megamind.avi", 3, None, 8), ("tree.avi", 8, None, 20)]


def add_dense_frames(root, unpacked):
    validation = os.listdir(os.path.join(root, "validate"))
    for video, step, stop, guard in DENSE_VIDEOS:
        prefix = os.path.splitext(video)[0].lower()
        validated = [int(name[len(prefix) + 1:len(prefix) + 5]) for name in validation
                     if name.startswith(prefix + "_")]
        capture = cv2.VideoCapture(os.path.join(unpacked, OPENCV_DATA, video))
        frame_index = 0
        while stop is None or frame_index < stop:
            ok, frame = capture.read()
            if not ok:
                break
            name = f"{prefix}_{frame_index:04d}.jpg"
            if (frame_index % step == 0 and all(abs(frame_index - v) > guard for v in validated)
                    and not os.path.exists(os.path.join(root, "train", name))):
                write(frame, os.path.join(root, "train"), name)
            frame_index += 1


def main():
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("dir")
    parser.add_argument("--dense", action="store_true")
    arguments = parser.parse_args()
    root = os.path.abspath(arguments.dir)
    for split in ["train", "validate", "holdout"]:
        shutil.rmtree(os.path.join(root, split), ignore_errors=True)
    unpacked = fetch_packages(root)
    photos = []
    for path in photo_paths(unpacked):
        image = cv2.imread(path, cv2.IMREAD_COLOR)
        if image is None or min(image.shape[:2]) < SMALLEST_SIDE:
            continue  # missing from this version of the package, or not a photo
        photos.append((f"still_{os.path.splitext(os.path.basename(path))[0]}.jpg", image))
    photos.sort(key=lambda named: named[0])
    for index, (name, image) in enumerate(photos):
        write(image, os.path.join(root, "holdout" if index % 2 == 0 else "train"), name)
    for video, step, holdout_from, holdout_step in VIDEOS:
        capture = cv2.VideoCapture(os.path.join(unpacked, OPENCV_DATA, video))
        if not capture.isOpened():
            sys.exit(f"qat-images: cannot open {video} from opencv-doc")
        frame_index = 0
        prefix = os.path.splitext(video)[0].lower()
        while True:
            ok, frame = capture.read()
            if not ok:
                break
            name = f"{prefix}_{frame_index:04d}.jpg"
            if holdout_from is not None and frame_index >= holdout_from:
                if frame_index % holdout_step == 0:
                    write(frame, os.path.join(root, "holdout"), name)
            elif frame_index % step == 0:
                write(frame, os.path.join(root, "train"), name)
            frame_index += 1
    for index, name in enumerate(sorted(os.listdir(os.path.join(root, "train")))):
        if index % 4 == 3:
            os.makedirs(os.path.join(root, "validate"), exist_ok=True)
            shutil.move(os.path.join(root, "train", name), os.path.join(root, "validate", name))
    if arguments.dense:
        add_dense_frames(root, unpacked)
    for split in ["train", "validate", "holdout"]:
        print(f"{split}: {len(os.listdir(os.path.join(root, split)))} images in {os.path.join(root, split)}")


if __name__ == "__main__":
    main()
