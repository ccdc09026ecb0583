//! A model's chat template: the prompt as the model was trained to see a conversation.
//!
//! Hugging Face keeps it in `tokenizer_config.json` (`chat_template`, a Jinja template over
//! `messages`), or beside it in `chat_template.jinja`; onnxruntime-genai reads the same, and so
//! does this. It is rendered with `add_generation_prompt`, so the text ends where the assistant's
//! answer begins.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};

/// A chat template, compiled once (a prompt file renders it for every line), and the special
/// tokens it may name.
pub struct ChatTemplate {
    source: PathBuf,
    env: minijinja::Environment<'static>,
    bos_token: String,
    eos_token: String,
}

const NAME: &str = "chat_template";

impl ChatTemplate {
    /// The template of the tokenizer at `tokenizer` (a tokenizer.json; the config beside it).
    pub fn beside(tokenizer: &Path) -> Result<ChatTemplate> {
        let folder = tokenizer.parent().unwrap_or(Path::new("."));
        let config_path = folder.join("tokenizer_config.json");
        let config: serde_json::Value = match std::fs::read_to_string(&config_path) {
            Ok(text) => serde_json::from_str(&text).with_context(|| format!("{}: not JSON", config_path.display()))?,
            Err(_) => serde_json::Value::Null,
        };
        let token = |key: &str| match &config[key] {
            serde_json::Value::String(s) => s.clone(),
            // The older form: {"content": "<s>", ...}.
            v => v["content"].as_str().unwrap_or_default().to_string(),
        };
        let jinja = folder.join("chat_template.jinja");
        let (source, template) = match config["chat_template"].as_str() {
            Some(t) => (config_path.clone(), t.to_string()),
            None if jinja.is_file() => {
                (jinja.clone(), crate::fsutil::read_text(&jinja).with_context(|| jinja.display().to_string())?)
            }
            None => anyhow::bail!(
                "--chat: {} has no chat template (no \"chat_template\" in tokenizer_config.json, no chat_template.jinja)",
                folder.display()
            ),
        };
        let mut env = minijinja::Environment::new();
        minijinja_contrib::add_to_environment(&mut env);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_function("raise_exception", |message: String| -> Result<String, minijinja::Error> {
            Err(minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, message))
        });
        env.add_template_owned(NAME, template)
            .map_err(|e| anyhow!("--chat: the chat template of {}: {e}", source.display()))?;
        Ok(ChatTemplate { source, env, bos_token: token("bos_token"), eos_token: token("eos_token") })
    }

    /// The text of a conversation of one user message (after `system`, where given), ending
    /// where the assistant's answer begins.
    pub fn render(&self, system: Option<&str>, user: &str) -> Result<String> {
        let turns: Vec<(&str, &str)> = system.map(|s| ("system", s)).into_iter().chain([("user", user)]).collect();
        self.render_turns(&turns)
    }

    /// The text of a whole conversation, `(role, content)` a message (`system`, `user`,
    /// `assistant`), ending where the assistant's next answer begins.
    pub fn render_turns(&self, turns: &[(&str, &str)]) -> Result<String> {
        let messages: Vec<minijinja::Value> =
            turns.iter().map(|&(role, content)| minijinja::context! { role => role, content => content }).collect();
        let failed = |e: minijinja::Error| anyhow!("--chat: the chat template of {}: {e}", self.source.display());
        let template = self.env.get_template(NAME).map_err(failed)?;
        template
            .render(minijinja::context! {
                messages => messages,
                add_generation_prompt => true,
                bos_token => self.bos_token.as_str(),
                eos_token => self.eos_token.as_str(),
            })
            .map_err(failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SmolLM2-135M-Instruct's template, as its GGUF and tokenizer_config.json carry it.
    const SMOLLM2: &str = "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

    fn folder_with(config: serde_json::Value) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tokenizer_config.json"), config.to_string()).unwrap();
        let tokenizer = dir.path().join("tokenizer.json");
        (dir, tokenizer)
    }

    #[test]
    fn smollm2s_template_renders_as_hugging_face_renders_it() {
        let (_dir, tokenizer) = folder_with(serde_json::json!({"chat_template": SMOLLM2, "bos_token": "<|im_start|>"}));
        let chat = ChatTemplate::beside(&tokenizer).unwrap();
        assert_eq!(
            chat.render(None, "What is the capital of France?").unwrap(),
            "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n"
        );
        assert_eq!(
            chat.render(Some("Be brief."), "Hi").unwrap(),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
        );
    }

    #[test]
    fn python_string_methods_and_raise_exception_work_as_in_transformers() {
        let template = "{{ bos_token }}{% for m in messages %}{% if m.role == 'system' %}{{ raise_exception('no system') }}{% endif %}[{{ m.content.strip() }}]{% endfor %}";
        let (_dir, tokenizer) =
            folder_with(serde_json::json!({"chat_template": template, "bos_token": {"content": "<s>"}}));
        let chat = ChatTemplate::beside(&tokenizer).unwrap();
        assert_eq!(chat.render(None, "  hi  ").unwrap(), "<s>[hi]");
        let e = chat.render(Some("x"), "hi").unwrap_err().to_string();
        assert!(e.contains("no system") && e.contains("tokenizer_config.json"), "{e}");
    }

    #[test]
    fn a_folder_without_a_template_says_so() {
        let (_dir, tokenizer) = folder_with(serde_json::json!({"bos_token": "<s>"}));
        let e = ChatTemplate::beside(&tokenizer).err().unwrap().to_string();
        assert!(e.contains("no chat template"), "{e}");
    }
}
