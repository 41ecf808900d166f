// damka: build, check and probe endgame tablebases for draughts.
#include "run.hpp"

int main(int argc, char** argv) { return damka::cli::run(argc, argv, damka::cli::Context{}); }
