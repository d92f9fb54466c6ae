"""What both arms of tabula run on: a shipped network opened with ONNX Runtime and
checked against its manifest (model_file), and positions drawn at random from a
game (sampling). The exact arm (solver -> datagen -> training -> export) writes
models; the play arm (eval, the session, the terminal and the web app) reads them;
neither needs the other for this."""
