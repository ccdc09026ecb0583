//! "Did you mean ...?": the names closest to one a user typed, for errors that suggest.

/// The candidates close to `typed` (Jaro-Winkler above 0.8, as clap's suggestions), closest
/// first, at most three, each once.
pub fn closest(typed: &str, candidates: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut scored: Vec<(f64, String)> = candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(&typed.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(score, _)| *score > 0.8)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut names: Vec<String> = Vec::new();
    for (_, name) in scored {
        if !names.contains(&name) && names.len() < 3 {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_closest_names_come_first_and_far_ones_not_at_all() {
        let ops = ["Softmax", "MatMul", "SoftmaxCrossEntropy", "Add"].map(String::from);
        assert_eq!(super::closest("Sofmax", ops.clone())[0], "Softmax");
        assert!(super::closest("Conv", ops).is_empty());
    }
}
