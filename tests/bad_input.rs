//! Bad input gets one clear line naming the file, input or flag, exit code 2, and no panic.

mod common;

use common::*;
use dmlrun::tensor::{DType, HostTensor};

/// Runs add_mul with `x` from `file` and `y` generated.
fn add_mul_with_x(file: &std::path::Path) -> std::process::Output {
    dmlrun()
        .arg(test_model("add_mul.onnx"))
        .arg("-i")
        .arg(format!("x={}", file.display()))
        .args(["--generate", "zeros"])
        .output()
        .unwrap()
}

fn squeezenet() -> String {
    sample("squeezenet1.1.onnx").to_str().unwrap().to_string()
}

#[test]
fn missing_model_file() {
    let out = dmlrun().args(["/nonexistent/model.onnx", "--generate", "zeros"]).output().unwrap();
    assert_one_line_error(&out, "model /nonexistent/model.onnx: no such file");
}

#[test]
fn empty_model_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.onnx");
    std::fs::write(&path, b"").unwrap();
    let out = dmlrun().arg(&path).args(["--generate", "zeros"]).output().unwrap();
    let err = assert_one_line_error(&out, "empty.onnx");
    assert!(err.contains("empty"), "{err}");
}

#[test]
fn truncated_model_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("truncated.onnx");
    let bytes = std::fs::read(sample("squeezenet1.1.onnx")).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let out = dmlrun().arg(&path).args(["--generate", "zeros"]).output().unwrap();
    assert_one_line_error(&out, "truncated.onnx");
}

#[test]
fn every_single_bit_flip_of_a_model_is_an_error_or_a_run_never_a_crash() {
    // One flipped bit per byte of a small model: each copy either runs, or fails with exit 2 and
    // one line naming the file. A panic, a signal or a second stderr line fails the test.
    let original = std::fs::read(test_model("add_mul.onnx")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut ran, mut refused) = (0, 0);
    for i in 0..original.len() {
        let mut bytes = original.clone();
        bytes[i] ^= if i % 2 == 0 { 0x80 } else { 0x01 };
        let path = dir.path().join(format!("flip{i}.onnx"));
        std::fs::write(&path, &bytes).unwrap();
        let out = dmlrun().arg(&path).args(["--generate", "zeros", "--iterations", "1"]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => ran += 1,
            Some(2) => {
                let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
                assert_eq!(lines.len(), 1, "byte {i}: {stderr}");
                assert!(
                    lines[0].starts_with(&format!("dmlrun: error: model {}", path.display())),
                    "byte {i}: {stderr}"
                );
                refused += 1;
            }
            other => panic!("byte {i}: exit {other:?}: {stderr}"),
        }
        assert!(!stderr.contains("panicked"), "byte {i}: {stderr}");
    }
    // Flips in names and doc strings still load; flips in structure do not. Both must occur,
    // or the sweep is not exercising what it claims to.
    assert!(ran > 0 && refused > ran, "ran {ran}, refused {refused}");
}

#[test]
fn text_file_renamed_onnx() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.onnx");
    std::fs::write(&path, "these are my notes, not a model\n").unwrap();
    let out = dmlrun().arg(&path).args(["--generate", "zeros"]).output().unwrap();
    assert_one_line_error(&out, "notes.onnx");
}

#[test]
fn model_with_an_operator_onnx_runtime_does_not_know() {
    let out = dmlrun().arg(test_model("unknown_op.onnx")).args(["--generate", "zeros"]).output().unwrap();
    let err = assert_one_line_error(&out, "unknown_op.onnx");
    assert!(err.contains("Frobnicate"), "{err}");
}

#[test]
fn unknown_input_name() {
    let out = dmlrun().args([&squeezenet(), "--input", "pixels=x.npy"]).output().unwrap();
    let err = assert_one_line_error(&out, "no input 'pixels'");
    assert!(err.contains("its inputs: input"), "{err}");
}

#[test]
fn missing_required_input() {
    let out = dmlrun().arg(test_model("add_mul.onnx")).output().unwrap();
    let err = assert_one_line_error(&out, "missing input 'x'");
    assert!(err.contains("--generate"), "{err}");
}

#[test]
fn input_given_twice() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("x.npy");
    write_npy(&f, &HostTensor::from_f32(vec![1, 4], &[0.0; 4]).unwrap());
    let spec = format!("x={}", f.display());
    let out = dmlrun()
        .arg(test_model("add_mul.onnx"))
        .args(["-i", &spec, "-i", &spec, "--generate", "zeros"])
        .output()
        .unwrap();
    assert_one_line_error(&out, "input 'x' is given twice");
}

#[test]
fn npy_of_the_wrong_dtype() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("x64.npy");
    write_npy(&f, &HostTensor::from_bytes(DType::Float64, vec![1, 4], vec![0; 32]).unwrap());
    let out = add_mul_with_x(&f);
    let err = assert_one_line_error(&out, "input 'x' expects float32, got float64");
    assert!(err.contains("x64.npy"), "{err}");
}

#[test]
fn npy_of_the_wrong_rank_and_shape() {
    let dir = tempfile::tempdir().unwrap();
    let rank1 = dir.path().join("rank1.npy");
    write_npy(&rank1, &HostTensor::from_f32(vec![4], &[0.0; 4]).unwrap());
    let out = add_mul_with_x(&rank1);
    assert_one_line_error(&out, "expects rank 2");
    let wide = dir.path().join("wide.npy");
    write_npy(&wide, &HostTensor::from_f32(vec![1, 5], &[0.0; 5]).unwrap());
    let out = add_mul_with_x(&wide);
    assert_one_line_error(&out, "axis 1 must be 4");
}

#[test]
fn shape_contradicting_a_dim_override() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("x.npy");
    write_npy(&f, &HostTensor::from_f32(vec![2, 4], &[0.0; 8]).unwrap());
    let out = dmlrun()
        .arg(test_model("add_mul.onnx"))
        .arg("-i")
        .arg(format!("x={}", f.display()))
        .args(["--generate", "zeros", "--dim", "batch=3"])
        .output()
        .unwrap();
    assert_one_line_error(&out, "--dim batch=3");
}

#[test]
fn image_for_an_int64_input() {
    let out = dmlrun().arg(test_model("int64_ids.onnx")).arg("-i").arg(sample("cat.png")).output().unwrap();
    assert_one_line_error(&out, "input 'input_ids' takes int64");
}

#[test]
fn truncated_png_and_jpeg() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("cut.png");
    let bytes = std::fs::read(sample("cat.png")).unwrap();
    std::fs::write(&png, &bytes[..bytes.len() / 3]).unwrap();
    let out = dmlrun().args([&squeezenet(), "-i", png.to_str().unwrap()]).output().unwrap();
    assert_one_line_error(&out, "cut.png");

    let jpg = dir.path().join("cut.jpg");
    let mut encoded = Vec::new();
    image::RgbImage::from_pixel(64, 64, image::Rgb([10, 20, 30]))
        .write_to(&mut std::io::Cursor::new(&mut encoded), image::ImageFormat::Jpeg)
        .unwrap();
    std::fs::write(&jpg, &encoded[..encoded.len() / 3]).unwrap();
    let out = dmlrun().args([&squeezenet(), "-i", jpg.to_str().unwrap()]).output().unwrap();
    assert_one_line_error(&out, "cut.jpg");
}

#[test]
fn image_over_the_pixel_limit_is_refused_from_its_header() {
    // A 54-byte BMP whose header claims 60000x60000 (3.6 gigapixels): refused before decoding.
    let dir = tempfile::tempdir().unwrap();
    let bomb = dir.path().join("bomb.bmp");
    let mut header = b"BM".to_vec();
    for field in [54u32, 0, 54, 40, 60000, 60000] {
        header.extend_from_slice(&field.to_le_bytes());
    }
    header.extend_from_slice(&1u16.to_le_bytes());
    header.extend_from_slice(&24u16.to_le_bytes());
    header.extend_from_slice(&[0; 24]);
    assert_eq!(header.len(), 54);
    std::fs::write(&bomb, &header).unwrap();
    let out = dmlrun().args([&squeezenet(), "-i", bomb.to_str().unwrap()]).output().unwrap();
    let err = assert_one_line_error(&out, "bomb.bmp: 60000x60000 pixels exceeds the limit of 100000000 pixels");
    assert!(err.contains("--max-image-pixels"), "{err}");

    // Raising the pixel limit does not let the decoder allocate 10 GB for 54 bytes.
    let out = dmlrun()
        .args([&squeezenet(), "-i", bomb.to_str().unwrap(), "--max-image-pixels", "20000000000"])
        .output()
        .unwrap();
    assert_one_line_error(&out, "bomb.bmp: cannot decode");

    // The limit applies to real photos too.
    let out = dmlrun()
        .args([&squeezenet(), "-i", sample("cat.png").to_str().unwrap(), "--max-image-pixels", "1000"])
        .output()
        .unwrap();
    assert_one_line_error(&out, "cat.png: 451x300 pixels exceeds the limit of 1000 pixels");
}

#[test]
fn npy_with_a_corrupt_header() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.npy");
    std::fs::write(&f, b"\x93NUMPY\x01\x00\x10\x00{'descr': garbage}\n").unwrap();
    let out = add_mul_with_x(&f);
    assert_one_line_error(&out, "bad.npy");
    // A format 2.0 header whose 32-bit length claims about 4 GB of a 20-byte file.
    let mut bytes = b"\x93NUMPY\x02\x00".to_vec();
    bytes.extend_from_slice(&u32::MAX.to_le_bytes());
    bytes.extend_from_slice(b"{'descr': '<f4'");
    std::fs::write(&f, bytes).unwrap();
    let out = add_mul_with_x(&f);
    assert_one_line_error(&out, "bad.npy: not a valid .npy file: the header claims 4294967295 bytes");
    // Brackets nested 100 deep: refused at once (the header parser's time is exponential in it).
    let header = format!("{{'descr': '<f4', 'fortran_order': {}False, 'shape': (1, 4), }}", "[".repeat(98));
    std::fs::write(&f, npy_with_header(&header, &[0; 16])).unwrap();
    let out = add_mul_with_x(&f);
    assert_one_line_error(&out, "bad.npy: not a valid .npy file: the header nests brackets 100 deep");
}

#[test]
fn tensor_proto_with_raw_data_shorter_than_dims() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("short.pb");
    let t = HostTensor::from_f32(vec![1, 4], &[0.0; 4]).unwrap();
    let mut bytes = dmlrun::formats::tensor_proto::write("x", &t);
    // Re-encode with dims claiming 2x4: the payload stays 16 bytes.
    let mut proto = <dmlrun::formats::onnx_proto::TensorProto as prost::Message>::decode(bytes.as_slice()).unwrap();
    proto.dims = vec![2, 4];
    bytes = prost::Message::encode_to_vec(&proto);
    std::fs::write(&f, bytes).unwrap();
    let out =
        dmlrun().arg(test_model("add_mul.onnx")).arg("-i").arg(&f).args(["--generate", "zeros"]).output().unwrap();
    let err = assert_one_line_error(&out, "short.pb");
    assert!(err.contains("raw_data holds 16 bytes"), "{err}");
}

#[test]
fn unknown_dim_name_lists_the_models_dims() {
    let out = dmlrun().args([&squeezenet(), "--generate", "zeros", "--dim", "batch=1"]).output().unwrap();
    let err = assert_one_line_error(&out, "--dim batch=1");
    assert!(err.contains("symbolic dimensions: N"), "{err}");
}

#[test]
fn bad_dim_values_are_usage_errors() {
    for bad in ["N=-2", "N=two", "N"] {
        let out = dmlrun().args([&squeezenet(), "--generate", "zeros", "--dim", bad]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--dim") && !stderr.contains("panicked"), "{bad}: {stderr}");
    }
}

#[test]
fn negative_device_and_zero_iterations_are_usage_errors() {
    for args in [["--device", "-1"], ["--iterations", "0"]] {
        let out = dmlrun().arg(squeezenet()).args(["--generate", "zeros"]).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(args[0]), "{args:?}");
    }
}

#[test]
fn directml_where_it_does_not_exist_is_an_error_not_a_fallback() {
    if cfg!(windows) {
        return;
    }
    let out = dmlrun().args([&squeezenet(), "--generate", "zeros", "--ep", "dml"]).output().unwrap();
    assert_one_line_error(&out, "--ep dml asks for DirectML");
    let out = dmlrun().args([&squeezenet(), "--generate", "zeros", "--device", "3"]).output().unwrap();
    let err = assert_one_line_error(&out, "--device asks for DirectML");
    assert!(err.contains("--ep cpu"), "{err}");
}

#[test]
fn output_directory_that_is_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("taken");
    std::fs::write(&file, b"x").unwrap();
    let out = dmlrun()
        .args([&squeezenet(), "--generate", "zeros", "--save-outputs", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_one_line_error(&out, "--save-outputs");
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}

#[cfg(target_os = "linux")]
#[test]
fn unwritable_output_directory() {
    // /proc refuses new entries even for root, which is who CI runs as. Said before the first
    // run (a long timed run must not end by losing its report), for both folders.
    for flag in ["--save-outputs", "--save-inputs"] {
        let out = dmlrun().args([&squeezenet(), "--generate", "zeros", flag, "/proc/dmlrun-out"]).output().unwrap();
        assert_one_line_error(&out, &format!("{flag} /proc/dmlrun-out: cannot create a file in /proc"));
    }
}

#[test]
fn failed_run_leaves_no_partial_output_files() {
    // The labels file is short, so the run fails after inference, before anything is written.
    let dir = tempfile::tempdir().unwrap();
    let labels = dir.path().join("labels.txt");
    std::fs::write(&labels, "one\ntwo\n").unwrap();
    let out_dir = dir.path().join("out");
    let out = dmlrun()
        .args([&squeezenet(), "--generate", "zeros", "--top-k", "3", "--labels", labels.to_str().unwrap()])
        .arg("--save-outputs")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_one_line_error(&out, "has 2 lines but output 'prob' has 1000 classes");
    assert!(!out_dir.exists() || std::fs::read_dir(&out_dir).unwrap().count() == 0);
}

#[test]
fn npy_with_an_unknown_dtype_code() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("odd.npy");
    std::fs::write(&f, npy_with_header("{'descr': '<x4', 'fortran_order': False, 'shape': (1, 4), }", &[0; 16]))
        .unwrap();
    let out = add_mul_with_x(&f);
    let err = assert_one_line_error(&out, "odd.npy");
    assert!(err.contains("x4"), "the error should name the dtype code: {err}");
}

#[test]
fn npy_whose_element_count_overflows() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("huge.npy");
    // 2^32 * 2^32 * 16 elements: overflows u64 before any size check could multiply it by 4 bytes.
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }";
    std::fs::write(&f, npy_with_header(header, &[0; 16])).unwrap();
    let out = add_mul_with_x(&f);
    assert_one_line_error(&out, "huge.npy");
    // A shape that fits in u64 but not in the file is refused as well, before allocating.
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 4), }";
    std::fs::write(&f, npy_with_header(header, &[0; 16])).unwrap();
    let out = add_mul_with_x(&f);
    assert_one_line_error(&out, "huge.npy");
}

#[test]
fn fortran_order_npy_is_read_in_its_logical_order() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("fortran.npy");
    // The logical array [[0, 1, 2, 3], [4, 5, 6, 7]], stored column by column.
    let column_major: Vec<u8> = [0f32, 4., 1., 5., 2., 6., 3., 7.].iter().flat_map(|v| v.to_le_bytes()).collect();
    let header = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 4), }";
    std::fs::write(&f, npy_with_header(header, &column_major)).unwrap();
    let saved = dir.path().join("out");
    dmlrun()
        .arg(test_model("add_mul.onnx"))
        .arg("-i")
        .arg(format!("x={}", f.display()))
        .args(["--generate", "zeros", "--iterations", "1", "--save-format", "npy", "--save-outputs"])
        .arg(&saved)
        .assert()
        .success();
    // y is zeros, so sum = x, in C order.
    let sum = read_npy(&saved.join("sum.npy"));
    assert_eq!(sum.shape, vec![2, 4]);
    assert_eq!(sum.to_f64().unwrap(), vec![0., 1., 2., 3., 4., 5., 6., 7.]);
}

#[test]
fn npz_missing_the_named_key() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("pair.npz");
    let t = HostTensor::from_f32(vec![1, 4], &[0.0; 4]).unwrap();
    let archive = dmlrun::formats::npy::write_npz(&[("a".into(), t.clone()), ("b".into(), t)]).unwrap();
    std::fs::write(&f, archive).unwrap();
    let out = add_mul_with_x(&f);
    let err = assert_one_line_error(&out, "pair.npz: has no array 'x' (it has: a, b)");
    assert!(err.contains("input file"), "{err}");
}

#[test]
fn device_out_of_range() {
    // Off Windows no adapter exists; the error says DirectML is unavailable and what to do,
    // naming the flag. (Under Wine the same request lists the adapters: scripts/wine-check.)
    let out = dmlrun().args([&squeezenet(), "--generate", "zeros", "--device", "7"]).output().unwrap();
    let err = assert_one_line_error(&out, "DirectML");
    assert!(err.contains("--ep cpu"), "{err}");
}

/// A version 1.0 .npy file with `header` (padded as numpy pads it) and raw `data`.
fn npy_with_header(header: &str, data: &[u8]) -> Vec<u8> {
    let mut text = header.to_string();
    while (10 + text.len() + 1) % 64 != 0 {
        text.push(' ');
    }
    text.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(text.len() as u16).to_le_bytes());
    bytes.extend_from_slice(text.as_bytes());
    bytes.extend_from_slice(data);
    bytes
}

#[test]
fn generated_input_over_the_size_limit() {
    // 10^11 x 4 float32: 1.6 TB. Refused before allocating, naming the limit and --dim.
    let out = dmlrun()
        .arg(test_model("add_mul.onnx"))
        .args(["--dim", "batch=100000000000", "--generate", "zeros"])
        .output()
        .unwrap();
    let err = assert_one_line_error(&out, "--max-tensor-bytes");
    assert!(err.contains("input 'x'") && err.contains("[100000000000, 4]"), "{err}");
    // A tensor exactly at the limit (1000 x 4 float32 = 16000 bytes) is allowed and runs.
    let out = dmlrun()
        .arg(test_model("add_mul.onnx"))
        .args(["--dim", "batch=1000", "--generate", "zeros", "--iterations", "1", "--max-tensor-bytes", "16000"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    // The reader is gone before dmlrun starts (`dmlrun info m | head -0`), so its first write to
    // stdout fails: each command ends with status 0 and says nothing, as ripgrep does; no panic.
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("golden");
    std::fs::create_dir_all(case.join("test_data_set_0")).unwrap();
    std::fs::copy(sample("squeezenet1.1.onnx"), case.join("model.onnx")).unwrap();
    for f in ["input_0.pb", "output_0.pb"] {
        std::fs::copy(data("golden").join("test_data_set_0").join(f), case.join("test_data_set_0").join(f)).unwrap();
    }
    let model = sample("squeezenet1.1.onnx");
    let (model, cat, case) = (model.to_str().unwrap(), sample("cat.png"), case.to_str().unwrap().to_string());
    let cat = cat.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec![model, "--input", cat, "--iterations", "1"],
        vec![model, "--input", cat, "--iterations", "1", "--json", "-"],
        vec!["test", &case],
        vec!["test", &case, "--json", "-"],
        vec!["bench", model, "--iterations", "2"],
        vec!["bench", model, "--iterations", "2", "--csv", "-"],
        vec!["info", model],
        vec!["info", model, "--json", "-"],
        vec!["devices"],
        vec!["doctor"],
        vec!["completions", "bash"],
        vec!["man"],
        vec!["--help"],
    ];
    for args in commands {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("dmlrun"))
            .args(&args)
            .env("RUST_BACKTRACE", "1")
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        // Nothing on stderr but warnings (bench warns of a noisy machine when two runs differ).
        assert!(stderr.lines().all(|l| l.starts_with("warning: ")), "{args:?} wrote to stderr: {stderr}");
    }
}

#[test]
fn a_full_disk_on_stdout_is_a_one_line_error() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("dmlrun"))
        .arg("info")
        .arg(sample("squeezenet1.1.onnx"))
        .stdout(full)
        .output()
        .unwrap();
    assert_one_line_error(&out, "dmlrun: error: writing to stdout: No space left on device");
}

#[test]
fn a_run_that_fails_on_generated_data_names_the_sizes_chosen_and_how_to_change_them() {
    let out = dmlrun()
        .arg(test_model("conv_free_hw.onnx"))
        .args(["--generate", "random", "--iterations", "1", "--ort-log-level", "fatal"])
        .output()
        .unwrap();
    let err = assert_one_line_error(&out, "on generated input(s) 'image' float32 [1, 3, 1, 1]");
    assert!(err.contains("(random in [0, 1) (seed 0); free dimension(s) height, width set to 1"), "{err}");
    assert!(
        err.contains("--shape NAME=D0,D1,..., --dim NAME=N, --free-dim-size N or --generate-range NAME=LO,HI"),
        "{err}"
    );
    assert!(err.contains("Invalid input shape"), "{err}");
}

/// One bad input for the matrix: the arguments (`{dir}` is a scratch folder holding the files
/// below), the exit code, and a piece of the one line on stderr.
struct BadInput {
    args: &'static str,
    code: i32,
    needle: &'static str,
}

#[test]
fn the_bad_input_matrix_gives_one_line_and_the_right_code_for_every_case() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("notes.txt"), "not a tensor\n").unwrap();
    std::fs::write(d.join("empty.png"), b"").unwrap();
    std::fs::write(d.join("afile"), b"").unwrap();
    std::fs::write(d.join("latin1.txt"), b"cat\ncaf\xe9\n").unwrap();
    std::fs::write(d.join("corrupt.onnx"), b"garbage\x04\x05\x06\x07").unwrap();
    std::fs::create_dir(d.join("empty_dir")).unwrap();
    std::fs::write(d.join("garbage.npz"), b"PK\x03\x04 this is no zip").unwrap();
    std::fs::write(d.join("garbage.pb"), b"\xff\xff\xff\xff\xff").unwrap();
    std::fs::write(d.join("bad_expect.txt"), "crashed node/test_x\n").unwrap();
    std::fs::write(d.join("bad.toml"), "[[model]]\npath = 3\n").unwrap();
    std::fs::write(d.join("unknown_key.toml"), "[[model]]\npath = \"a.onnx\"\nbatch = 2\n").unwrap();
    let add_mul = test_model("add_mul.onnx");
    std::fs::write(
        d.join("dup.toml"),
        format!(
            "[[model]]\npath = \"{0}\"\nname = \"a\"\n[[model]]\npath = \"{0}\"\nname = \"a\"\n",
            add_mul.display()
        ),
    )
    .unwrap();
    std::fs::write(d.join("baseline.json"), "{\"schema\": \"something/9\", \"models\": []}").unwrap();
    std::fs::create_dir_all(d.join("suite").join("case").join("test_data_set_0")).unwrap();
    std::fs::copy(&add_mul, d.join("suite").join("case").join("model.onnx")).unwrap();
    let sq = sample("squeezenet1.1.onnx");
    let am = add_mul.to_str().unwrap();
    let sq = sq.to_str().unwrap();
    let matrix = [
        // Flags clap refuses: exit 2, its usage error.
        BadInput { args: "{sq} --free-dim-size many --generate zeros", code: 2, needle: "--free-dim-size" },
        BadInput { args: "{sq} --shape input=1,3,x --generate zeros", code: 2, needle: "--shape" },
        BadInput { args: "{sq} --generate-range 2,1", code: 2, needle: "--generate-range" },
        BadInput { args: "test {dir} --timeout soon", code: 2, needle: "--timeout" },
        BadInput { args: "test {dir} --isolation sometimes", code: 2, needle: "--isolation" },
        BadInput { args: "{sq} --generate lots", code: 2, needle: "--generate" },
        BadInput { args: "{sq} --input x=", code: 2, needle: "names input 'x' but no file" },
        BadInput { args: "{sq} --device luid:12", code: 2, needle: "luid:HIGH-LOW" },
        BadInput { args: "{sq} --device ''", code: 2, needle: "--device" },
        BadInput { args: "bench {sq} --max-regression lots", code: 2, needle: "--max-regression" },
        // A bare 5 would be 500%, the gate silently off: refused, with both spellings offered.
        BadInput { args: "bench {sq} --max-regression 5", code: 2, needle: "ambiguous: write a percentage (5%)" },
        // An .onnx given to --baseline: not a report, and the flag it was meant for named.
        BadInput { args: "bench {sq} --baseline {sq}", code: 2, needle: "give it with --baseline-model" },
        // Usage errors in dmlrun's one line: no '--' tip, no usage lines.
        BadInput { args: "{sq} --iterations -1", code: 2, needle: "'-1' is not a whole number from 1 to 1000000000" },
        BadInput { args: "bench {am} --iterations -1", code: 2, needle: "'-1' is not a whole number from 1" },
        BadInput { args: "generate {am} --iterations -1", code: 2, needle: "'-1' is not a whole number" },
        BadInput { args: "{sq} --bogus 1", code: 2, needle: "unexpected argument '--bogus' found" },
        BadInput { args: "bench {am} --dimm x=1", code: 2, needle: "did you mean '--dim'?" },
        // Values nobody could mean, refused before any work, with the range.
        BadInput { args: "{sq} --resize-to 0", code: 2, needle: "'0' is not a whole number of 1 or more" },
        BadInput { args: "reduce {sq} --resize-to 0", code: 2, needle: "--resize-to" },
        BadInput { args: "{sq} --std nan,1,1", code: 2, needle: "'nan' is not a finite number other than 0" },
        BadInput { args: "{sq} --std 0,1,1", code: 2, needle: "'0' is not a finite number other than 0" },
        BadInput { args: "reduce {sq} --std 1,inf,1", code: 2, needle: "'inf' is not a finite number" },
        BadInput { args: "{sq} --mean nan,0,0", code: 2, needle: "'nan' is not a finite number" },
        BadInput { args: "{sq} --top-k 0", code: 2, needle: "--top-k" },
        BadInput { args: "{sq} --warmup 18446744073709551615", code: 2, needle: "from 0 to 1000000" },
        BadInput { args: "bench {am} --warmup 18446744073709551615", code: 2, needle: "from 0 to 1000000" },
        BadInput { args: "generate {am} --warmup 18446744073709551615", code: 2, needle: "from 0 to 1000000" },
        BadInput { args: "{sq} --intra-threads 100000", code: 2, needle: "from 0 to 1024" },
        BadInput { args: "test {dir} --intra-threads 100000", code: 2, needle: "from 0 to 1024" },
        BadInput { args: "bench {am} --inter-threads 100000", code: 2, needle: "from 0 to 1024" },
        BadInput { args: "reduce {sq} --intra-threads 100000", code: 2, needle: "from 0 to 1024" },
        BadInput { args: "test {dir} --jobs 1000", code: 2, needle: "from 1 to 256" },
        BadInput { args: "bench {am} --max-iterations 0 --duration 1s", code: 2, needle: "--max-iterations" },
        BadInput { args: "{sq} --decompose LayerNorm", code: 2, needle: "did you mean" },
        // A folder where a model file goes, and a file that is not a model.
        BadInput { args: "info {dir}", code: 2, needle: "is a folder; give the model file in it: dmlrun info " },
        BadInput { args: "reduce {dir}", code: 2, needle: "is a folder; dmlrun reduce takes one model file" },
        BadInput {
            args: "info {dir}/corrupt.onnx",
            code: 2,
            needle: "not an ONNX model: its bytes are not the protobuf",
        },
        // Flags that name what the model lacks.
        BadInput {
            args: "{am} --generate zeros --precision fp16 --keep-fp32 Mull",
            code: 2,
            needle: "--keep-fp32 Mull: the model has no operator type or node of that name (did you mean Mul?)",
        },
        BadInput { args: "{am} --generate zeros --gemm-zero-bias", code: 2, needle: "has no Gemm without a bias" },
        // Exports whose folder does not exist: said before any work, without a temporary name.
        BadInput {
            args: "{sq} --generate zeros --json /nonexistent/x.json",
            code: 2,
            needle: "the folder /nonexistent does not exist",
        },
        BadInput {
            args: "test {dir}/suite --junit /nonexistent/x.xml",
            code: 2,
            needle: "the folder /nonexistent does not exist",
        },
        // Files that are not what they claim.
        BadInput { args: "{dir}/empty_dir", code: 2, needle: "empty_dir" },
        BadInput { args: "info {dir}/notes.txt", code: 2, needle: "notes.txt" },
        BadInput { args: "{sq} --input {dir}/empty.png", code: 2, needle: "empty.png" },
        BadInput { args: "{sq} --input {dir}/notes.txt", code: 2, needle: "notes.txt" },
        BadInput { args: "{am} --input {dir}/garbage.npz", code: 2, needle: "garbage.npz" },
        BadInput { args: "{am} --input x={dir}/garbage.pb --generate zeros", code: 2, needle: "garbage.pb" },
        BadInput {
            args: "{sq} --generate zeros --labels {dir}/missing_labels.txt --top-k 3",
            code: 2,
            needle: "missing_labels.txt",
        },
        // Report destinations that cannot be written: nothing is left behind.
        BadInput { args: "{sq} --generate zeros --iterations 1 --json {dir}/afile/r.json", code: 2, needle: "--json" },
        BadInput { args: "bench {am} {sq} --iterations 1 --json {dir}/afile/r.json", code: 2, needle: "--json" },
        BadInput { args: "bench {am} --iterations 1 --csv {dir}/afile/r.csv", code: 2, needle: "--csv" },
        // Suites and manifests.
        BadInput {
            args: "test {dir}/empty_dir",
            code: 2,
            needle: "no model.onnx, test_data_set_* folder or .onnx file found",
        },
        BadInput { args: "test {dir}/afile", code: 2, needle: "afile: not a folder or an .onnx file" },
        BadInput { args: "bench {dir}/empty_dir", code: 2, needle: "no .onnx files" },
        BadInput { args: "bench {dir}/dup.toml", code: 2, needle: "two models are both named" },
        BadInput { args: "bench {dir}/bad.toml", code: 2, needle: "bad.toml" },
        BadInput { args: "bench {dir}/unknown_key.toml", code: 2, needle: "unknown_key.toml" },
        BadInput { args: "bench {am} --baseline {dir}/baseline.json --iterations 1", code: 2, needle: "baseline.json" },
        BadInput {
            args: "bench {am} --baseline {dir}/notes.txt --iterations 1",
            code: 2,
            needle: "not a dmlrun bench JSON report",
        },
        BadInput {
            args: "test {dir}/suite --expect {dir}/bad_expect.txt",
            code: 2,
            needle: "unknown status 'crashed'",
        },
        BadInput { args: "bench {am} --dim nosuchdim=2 --iterations 1", code: 2, needle: "nosuchdim" },
        // The words a newcomer met: each says what is wrong, once.
        BadInput { args: "{am} --dim batch=99999999999999999999", code: 2, needle: "is too large (at most" },
        BadInput { args: "{sq} --precision int3", code: 2, needle: "did you mean 'int4' or 'int8'?" },
        BadInput { args: "generate {am} -i 3", code: 2, needle: "unexpected argument '-i'" },
        BadInput {
            args: "{sq} --generate zeros --top-k 1 --labels {dir}/latin1.txt",
            code: 2,
            needle: "not UTF-8 text (byte 0xE9 on line 2); save it as UTF-8",
        },
        BadInput { args: "{am} --input x={dir}/missing.npy --dim batch=1", code: 2, needle: "no such file or folder" },
    ];
    for case in &matrix {
        let args: Vec<String> = case
            .args
            .split(' ')
            .map(|a| a.replace("{dir}", d.to_str().unwrap()).replace("{sq}", sq).replace("{am}", am).replace("''", ""))
            .collect();
        let before: Vec<_> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name()).collect();
        let out = dmlrun().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(case.code), "{}: {stderr}", case.args);
        assert!(!stderr.contains("panicked"), "{}: {stderr}", case.args);
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        // Every error, usage errors included, is dmlrun's one line, and none names a temporary file.
        let error = lines.iter().find(|l| l.starts_with("dmlrun: error:"));
        let error = error.unwrap_or_else(|| panic!("{}: no error line in: {stderr}", case.args));
        assert!(error.contains(case.needle), "{}: expected {:?} in: {stderr}", case.args, case.needle);
        assert_eq!(lines.len(), 1, "{}: one line, got: {stderr}", case.args);
        let own = error.replace(d.to_str().unwrap(), "{dir}");
        // A missing input file is named once (the caller names it; the read below it does not again).
        for word in own.split_whitespace().filter(|w| w.starts_with("{dir}/missing")) {
            assert_eq!(own.matches(word.trim_end_matches([':', ',', ';'])).count(), 1, "{}: {error}", case.args);
        }
        assert!(!own.contains(".tmp") && !own.contains(".partial"), "{}: {error}", case.args);
        let after: Vec<_> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(before, after, "{}: files appeared in the scratch folder", case.args);
    }
    assert!(matrix.len() >= 28);
}

#[test]
fn the_looking_commands_refuse_a_json_file_they_cannot_write_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-folder").join("out.json");
    let model = squeezenet();
    for args in [vec!["info", model.as_str()], vec!["devices"], vec!["doctor"]] {
        let output = dmlrun().args(&args).arg("--json").arg(&missing).output().unwrap();
        assert_one_line_error(&output, "--json");
        assert!(output.stdout.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&output.stdout));
    }
}
