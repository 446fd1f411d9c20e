// Package dice scores 3D-UNet KiTS19 segmentations with the kidney and
// tumor Dice coefficients as mlcommons/inference
// vision/medical_imaging/3d-unet-kits19/accuracy_kits.py does, and prints
// its summary line and per-case CSV.
package dice
