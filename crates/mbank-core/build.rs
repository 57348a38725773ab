// The demo banks and templates are embedded with include_dir!/include_str!; rebuild when
// they change (cargo scans the folder recursively).
fn main() {
    println!("cargo:rerun-if-changed=../../assets");
    println!("cargo:rerun-if-changed=build.rs");
}
