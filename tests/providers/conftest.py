# fake_llama/ is a stand-in llama_cpp package run as a child process, never a test module
collect_ignore = ["fake_llama"]
