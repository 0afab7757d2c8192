# make bench: writes the generated project into the current directory.
#   python3 make_project.py MB FILES
# Half the bytes in text-like files (compress well), half in 1% of the files of random
# bytes (do not compress at all), as a project with some binary assets.
import os, random, sys
mb, files = int(sys.argv[1]), int(sys.argv[2])
nbin = max(1, files // 100)
bin_size, text_size = mb * 500_000 // nbin, mb * 500_000 // (files - nbin)
random.seed(1)
words = [b"alpha", b"beta", b"gamma", b"delta", b"return", b"static", b"int", b"void", b"\n"]
for i in range(files):
    d = "src/d%02d" % (i % 50)
    os.makedirs(d, exist_ok=True)
    with open("%s/f%04d.%s" % (d, i, "bin" if i % 100 == 0 else "c"), "wb") as f:
        if i % 100 == 0:
            f.write(os.urandom(bin_size))
        else:
            f.write(b" ".join(random.choice(words) for _ in range(text_size // 4))[:text_size])
