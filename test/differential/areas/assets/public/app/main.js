console.log("app")
